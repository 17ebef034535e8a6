//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusStore
import Synchronization

/// A connection whose transaction can hold one savepoint per grouped write (see
/// ``WriteGroupQueue``).
protocol SavepointConnection {
    /// Opens a savepoint for the next write of the group.
    func openSavepoint() async throws
    /// Waits for the statements the write sent without waiting for their answers
    /// (``SQLConnection/send(_:)``), and throws if one of them failed.
    func awaitSentStatements() async throws
    /// Keeps what the write since the last ``openSavepoint()`` did.
    func keepSavepoint() async throws
    /// Undoes what the write since the last ``openSavepoint()`` did, and nothing before it.
    func rollBackToSavepoint() async throws
}

/// Concurrent writers' transaction bodies, gathered into groups that each commit once: the
/// queue both SQL engines' writers share.
///
/// A commit costs more than the small writes most requests make (a flush of the log, and on
/// PostgreSQL the round trips of `BEGIN`, `COMMIT` and the tenant's lock). So writers queue
/// their bodies under a key, and the first to find its key idle leads: it has the engine (its
/// `commit`) run every queued body of that key in one transaction and commit, answers the
/// others, and hands the lead to the first writer queued meanwhile. Writers return only after
/// the commit that made their writes durable. A body that fails rolls back only itself: both
/// engines run the group again with a savepoint per body once a body failed without; a group of
/// one needs none. Keys run independently of each other: SQLite has one (its one writer),
/// PostgreSQL one per tenant.
final class WriteGroupQueue<Connection: SavepointConnection>: Sendable {
    /// Runs one key's group in one transaction and commits it; returns the commit's outcome.
    typealias CommitGroup = @Sendable (_ key: String, _ members: [Member]) async -> Result<Void, any Error>

    /// What a queued writer is told when its wait ends.
    fileprivate enum Signal: Sendable {
        /// Run the queue of the key (this writer's own body is in it).
        case lead
        /// The group holding this writer's body committed, or failed to.
        case finished(Result<Void, any Error>)
    }

    /// One queued body, as the leader's engine runs it.
    final class Member: @unchecked Sendable {
        // @unchecked: `execute` and `isLeader` are used only by the leader of the member's group.
        fileprivate let execute: (Connection, _ inSavepoint: Bool) async throws -> Void
        fileprivate let continuation: CheckedContinuation<Signal, Never>
        fileprivate var isLeader = false

        fileprivate init(
            execute: @escaping (Connection, Bool) async throws -> Void,
            continuation: CheckedContinuation<Signal, Never>
        ) {
            self.execute = execute
            self.continuation = continuation
        }

        /// Runs the body in a savepoint of its own: its failure is its writer's alone. Throws
        /// only when the savepoint statements fail, which leaves the group's transaction broken.
        func runInSavepoint(on connection: Connection) async throws {
            try await execute(connection, true)
        }

        /// Runs the body with no savepoint: its failure is the group's.
        func runAlone(on connection: Connection) async throws {
            try await execute(connection, false)
        }
    }

    /// The outcome of one body, read by its writer once the group is done.
    private final class Outcome<Value>: @unchecked Sendable {
        // @unchecked: written by the leader before the group completes, read by the writer after.
        var result: Result<Value, any Error>?
    }

    /// The most bodies one commit serves: bounds a group's latency (and, on PostgreSQL, its
    /// subtransactions).
    let maximumGroupSize: Int
    /// The writers queued under each key whose group runs; a key is absent while idle.
    private let queues = Mutex<[String: [Member]]>([:])

    init(maximumGroupSize: Int) {
        self.maximumGroupSize = maximumGroupSize
    }

    /// Whether no write runs or waits.
    var isIdle: Bool { queues.withLock { $0.isEmpty } }

    /// How many writers of `key` wait for the group running to end.
    func waitingCount(of key: String) -> Int {
        queues.withLock { $0[key]?.count ?? 0 }
    }

    /// Runs `body` in a transaction shared with the concurrent writers of `key`, and returns once
    /// it commits. Should this writer lead, `commit` runs its group (every writer of a key passes
    /// the same).
    func write<Value: Sendable>(
        key: String,
        committingWith commit: CommitGroup,
        _ body: @escaping @Sendable (Connection) async throws -> Value
    ) async throws -> Value {
        let outcome = Outcome<Value>()
        let execute: (Connection, Bool) async throws -> Void = { connection, inSavepoint in
            guard inSavepoint else {
                outcome.result = .success(try await body(connection))
                return
            }
            try await connection.openSavepoint()
            do {
                let value = try await body(connection)
                try await connection.awaitSentStatements()
                outcome.result = .success(value)
            } catch {
                outcome.result = .failure(error)
                try await connection.rollBackToSavepoint()
                return
            }
            try await connection.keepSavepoint()
        }
        var member: Member?
        let signal = await withCheckedContinuation { (continuation: CheckedContinuation<Signal, Never>) in
            let queued = Member(execute: execute, continuation: continuation)
            member = queued
            let leads = queues.withLock { queues in
                guard queues[key] == nil else {
                    queues[key]?.append(queued)
                    return false
                }
                queues[key] = [queued]
                return true
            }
            if leads { continuation.resume(returning: .lead) }
        }
        let committed: Result<Void, any Error>
        switch signal {
        case .finished(let result):
            committed = result
        case .lead:
            member?.isLeader = true
            committed = await runGroup(of: key, commit)
        }
        try committed.get()
        guard let result = outcome.result else { throw StoreError(.database, detail: "write body did not run") }
        return try result.get()
    }

    // MARK: - Private

    /// Runs the key's queued bodies as one group, answers their writers, and passes the lead on
    /// if more are waiting. Returns the commit's outcome for the leader's own body.
    private func runGroup(of key: String, _ commit: CommitGroup) async -> Result<Void, any Error> {
        let group = queues.withLock { queues in
            let queued = queues[key] ?? []
            let count = min(queued.count, maximumGroupSize)
            queues[key] = Array(queued.dropFirst(count))
            return Array(queued.prefix(count))
        }
        let outcome = await commit(key, group)
        for member in group where !member.isLeader {
            member.continuation.resume(returning: .finished(outcome))
        }
        let next: Member? = queues.withLock { queues in
            guard let next = queues[key]?.first else {
                queues[key] = nil
                return nil
            }
            return next
        }
        next?.continuation.resume(returning: .lead)
        return outcome
    }
}
