//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NIOCore
import Synchronization

/// The statements a PostgreSQL write transaction sent without waiting for their answers
/// (``PostgresSQLConnection/send(_:)``), which it waits for with its `COMMIT`.
///
/// A connection answers its statements in the order they were sent, and the server runs them in
/// that order: a statement sent after one of these sees what it wrote. One that fails aborts the
/// transaction, and every statement after it then fails with "current transaction is aborted".
/// So the first failure is kept: whoever waits next, and the commit, are told the cause rather
/// than its echo, even when a caller caught the echo and carried on.
final class UnawaitedStatements: Sendable {
    private struct State {
        var sent: [EventLoopFuture<[SQLRow]>] = []
        var failure: (any Error)?
    }

    private let state = Mutex(State())

    /// Whether no statement waits for its answer, and none failed.
    var isSettled: Bool { state.withLock { $0.sent.isEmpty && $0.failure == nil } }

    /// The first failure of a statement sent this way, once it is known.
    var failure: (any Error)? { state.withLock { $0.failure } }

    func append(_ answer: EventLoopFuture<[SQLRow]>) {
        state.withLock { $0.sent.append(answer) }
    }

    /// The answers not yet waited for, in the order their statements were sent; forgets them.
    func takeAll() -> [EventLoopFuture<[SQLRow]>] {
        state.withLock { state in
            defer { state.sent = [] }
            return state.sent
        }
    }

    /// Forgets every statement and failure: a rollback undid them.
    func reset() {
        state.withLock { $0 = State() }
    }

    /// Keeps `error` as the transaction's cause of failure, unless an earlier one is kept.
    func fail(_ error: any Error) {
        state.withLock { state in
            if state.failure == nil { state.failure = error }
        }
    }
}

/// A statement sent unawaited failed, found as the transaction committed: the server answered
/// its `COMMIT` with a rollback.
struct SentStatementFailure: Error {
    var error: any Error
}
