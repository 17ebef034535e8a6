//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusStore
import Synchronization

/// SQLite's single write connection, shared by concurrent writers through group commit.
///
/// A commit costs more than the small writes a request makes (the WAL frames of every page
/// touched, and the transaction bookkeeping), and handing the connection from task to task
/// costs a thread wake-up each time. So writers queue their transaction bodies, and one of them,
/// the leader, runs every queued body in one transaction, each inside a SAVEPOINT of its own (a
/// failing body rolls back only itself), then commits once for all. Writers return only after
/// the commit that made their writes durable. When more bodies queued up meanwhile, the leader
/// hands the lead to the first of them and returns. A group is capped at
/// ``maximumGroupSize`` bodies to bound latency.
final class GroupCommitWriter: Sendable {
    /// The most transaction bodies one commit serves.
    static let maximumGroupSize = 64

    /// What a queued writer is told when its wait ends.
    private enum Signal: Sendable {
        /// Run the queue (this writer's own body is in it).
        case lead
        /// The group holding this writer's body committed, or failed to.
        case finished(Result<Void, StoreError>)
    }

    /// One queued transaction body and where its outcome goes.
    private final class Job: @unchecked Sendable {
        // @unchecked: `execute` and `outcome` are used only by the leader holding the connection.
        let execute: (SQLiteConnection) async -> Void
        let continuation: CheckedContinuation<Signal, Never>
        var isLeader = false

        init(execute: @escaping (SQLiteConnection) async -> Void, continuation: CheckedContinuation<Signal, Never>) {
            self.execute = execute
            self.continuation = continuation
        }
    }

    /// The outcome of one body, read by its writer once the group is done.
    private final class Outcome<Value>: @unchecked Sendable {
        // @unchecked: written by the leader before the group completes, read by the writer after.
        var result: Result<Value, any Error>?
    }

    private struct State: Sendable {
        var queue: [Job] = []
        var isRunning = false
    }

    /// The connection, used only by the current leader.
    private struct Connection: @unchecked Sendable {
        let value: SQLiteConnection
    }

    private let connection: Connection
    private let state = Mutex(State())
    private let restartSignal: WALRestartSignal
    /// Statements every group runs after its bodies, outside their savepoints, before it commits.
    private let statementsBeforeCommit = Mutex<[String]>([])

    init(_ connection: SQLiteConnection, restartSignal: WALRestartSignal) {
        self.connection = Connection(value: connection)
        self.restartSignal = restartSignal
    }

    var underlyingConnection: SQLiteConnection { connection.value }

    /// Makes every later group run `statements` after its bodies and before it commits (see
    /// ``SearchIndexQueue``). Set once the schema has the tables they use.
    func runBeforeEachCommit(_ statements: [String]) {
        statementsBeforeCommit.withLock { $0 = statements }
    }

    /// Whether no write runs or waits.
    var isIdle: Bool { state.withLock { !$0.isRunning && $0.queue.isEmpty } }

    /// Runs `body` in a transaction (shared with concurrent writers) and returns once it commits.
    func write<Value: Sendable>(_ body: @escaping @Sendable (SQLiteConnection) async throws -> Value) async throws -> Value {
        let outcome = Outcome<Value>()
        let execute: (SQLiteConnection) async -> Void = { sqlite in
            do {
                try sqlite.run("SAVEPOINT writer")
                do {
                    outcome.result = .success(try await body(sqlite))
                    try sqlite.run("RELEASE writer")
                } catch {
                    try? sqlite.run("ROLLBACK TO writer")
                    try? sqlite.run("RELEASE writer")
                    outcome.result = .failure(error)
                }
            } catch {
                outcome.result = .failure(error)
            }
        }
        var job: Job?
        let signal = await withCheckedContinuation { (continuation: CheckedContinuation<Signal, Never>) in
            let queued = Job(execute: execute, continuation: continuation)
            job = queued
            let leads = state.withLock { state in
                state.queue.append(queued)
                if state.isRunning { return false }
                state.isRunning = true
                return true
            }
            if leads { continuation.resume(returning: .lead) }
        }
        let committed: Result<Void, StoreError>
        switch signal {
        case .finished(let result):
            committed = result
        case .lead:
            job?.isLeader = true
            committed = await runGroup()
        }
        try committed.get()
        guard let result = outcome.result else { throw StoreError(.database, detail: "write body did not run") }
        return try result.get()
    }

    // MARK: - Private

    /// Runs the queued bodies as one transaction, completes their writers, and passes the lead
    /// on if more are waiting. Returns the commit's outcome for the leader's own body.
    private func runGroup() async -> Result<Void, StoreError> {
        let group = state.withLock { state in
            let count = min(state.queue.count, Self.maximumGroupSize)
            defer { state.queue.removeFirst(count) }
            return Array(state.queue.prefix(count))
        }
        let sqlite = connection.value
        var outcome: Result<Void, StoreError>
        do {
            // IMMEDIATE takes the write lock now, so another process's writer cannot make this
            // transaction fail halfway with SQLITE_BUSY.
            try sqlite.run("BEGIN IMMEDIATE")
            for job in group {
                await job.execute(sqlite)
                // An error such as a full disk makes SQLite roll back the whole transaction, not
                // just the failing body's savepoint: then nothing of this group stands, and the
                // bodies still queued must not run outside a transaction.
                guard sqlite.isInTransaction else {
                    throw StoreError(.database, detail: "SQLite rolled back the group's transaction")
                }
            }
            for statement in statementsBeforeCommit.withLock({ $0 }) {
                try sqlite.run(statement)
            }
            try sqlite.run("COMMIT")
            outcome = .success(())
        } catch {
            try? sqlite.run("ROLLBACK")
            outcome = .failure(error as? StoreError ?? StoreError(.database, detail: "\(error)"))
        }
        for job in group where !job.isLeader {
            job.continuation.resume(returning: .finished(outcome))
        }
        // Between two groups, with the lead still held and the group's writers answered: the one
        // moment the connection is free for rewinding the WAL (see WALRestartSignal).
        if restartSignal.take() { _ = try? sqlite.query("PRAGMA wal_checkpoint(RESTART)", []) }
        let next: Job? = state.withLock { state in
            guard let next = state.queue.first else {
                state.isRunning = false
                return nil
            }
            return next
        }
        next?.continuation.resume(returning: .lead)
        return outcome
    }
}
