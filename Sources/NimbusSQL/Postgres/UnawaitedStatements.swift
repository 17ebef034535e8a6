//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NIOCore
import Synchronization

/// The statements a PostgreSQL write transaction sent without waiting for their answers
/// (``PostgresSQLConnection/send(_:)``), which it waits for with its `COMMIT`; and, for a
/// transaction that does not wait for its start, `BEGIN` and its lock.
///
/// A connection answers its statements in the order they were sent, and the server runs them in
/// that order: a statement sent after one of these sees what it wrote. One that fails aborts the
/// transaction, and every statement after it then fails with "current transaction is aborted".
/// So the first failure is kept: whoever waits next, and the commit, are told the cause rather
/// than its echo, even when a caller caught the echo and carried on.
final class UnawaitedStatements: Sendable {
    /// One statement's answer, and whether the statement starts the transaction.
    struct Sent: Sendable {
        let answer: EventLoopFuture<[SQLRow]>
        let startsTransaction: Bool
    }

    private struct State {
        var sent: [Sent] = []
        var failure: (any Error)?
        var startFailed = false
    }

    private let state = Mutex(State())

    /// Whether no statement waits for its answer, and none failed.
    var isSettled: Bool { state.withLock { $0.sent.isEmpty && $0.failure == nil } }

    /// The first failure of a statement sent this way, once it is known.
    var failure: (any Error)? { state.withLock { $0.failure } }

    /// The failure of `BEGIN` or the lock, once known: the transaction's own, not a writer's.
    var startFailure: (any Error)? { state.withLock { $0.startFailed ? $0.failure : nil } }

    func append(_ sent: Sent) {
        state.withLock { $0.sent.append(sent) }
    }

    /// The answers not yet waited for, in the order their statements were sent; forgets them.
    func takeAll() -> [Sent] {
        state.withLock { state in
            defer { state.sent = [] }
            return state.sent
        }
    }

    /// Forgets every statement and failure: a rollback undid them.
    func reset() {
        state.withLock { $0 = State() }
    }

    /// Keeps `error`, the failure of `sent`, as the transaction's cause of failure, unless an
    /// earlier one is kept.
    func fail(_ error: any Error, of sent: Sent) {
        state.withLock { state in
            guard state.failure == nil else { return }
            state.failure = error
            state.startFailed = sent.startsTransaction
        }
    }
}

/// A statement sent unawaited failed, found as the transaction committed: the server answered
/// its `COMMIT` with a rollback.
struct SentStatementFailure: Error {
    var error: any Error
}
