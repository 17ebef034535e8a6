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
/// costs a thread wake-up each time. So writers queue their transaction bodies
/// (``WriteGroupQueue``, all under one key: there is one writer), and the leader runs every
/// queued body in one transaction, then commits once for all. A group is capped at
/// ``maximumGroupSize`` bodies to bound latency.
///
/// Most writes succeed, so a group's bodies first run one after another with no savepoint, two
/// statements fewer each (`SAVEPOINT`, `RELEASE`). Should one fail, the transaction rolls back
/// and the group runs again with a savepoint per body, so the failure is its writer's alone (a
/// body may run more than once: ``SQLDatabase/write(serializing:_:)``), as PostgreSQL's groups
/// do. A group of one needs none: its body's failure is the group's. Between the two runs the
/// write lock is free for a moment: another process's writer (the admin CLI) may take it, and
/// the group then waits for it, as any `BEGIN IMMEDIATE` does.
final class GroupCommitWriter: Sendable {
    /// The most transaction bodies one commit serves.
    static let maximumGroupSize = 64
    /// The one key of ``groups``: there is one writer.
    static let key = ""

    /// The connection, used only by the current leader.
    private struct Connection: @unchecked Sendable {
        let value: SQLiteConnection
    }

    private let connection: Connection
    let groups = WriteGroupQueue<SQLiteConnection>(maximumGroupSize: maximumGroupSize)
    private let restartSignal: WALRestartSignal
    /// Statements every group runs after its bodies, outside their savepoints, before it commits.
    private let statementsBeforeCommit = Mutex<[String]>([])

    init(_ sqlite: SQLiteConnection, restartSignal: WALRestartSignal) {
        connection = Connection(value: sqlite)
        self.restartSignal = restartSignal
    }

    var underlyingConnection: SQLiteConnection { connection.value }

    /// Makes every later group run `statements` after its bodies and before it commits (see
    /// ``SearchIndexQueue``). Set once the schema has the tables they use.
    func runBeforeEachCommit(_ statements: [String]) {
        statementsBeforeCommit.withLock { $0 = statements }
    }

    /// Whether no write runs or waits.
    var isIdle: Bool { groups.isIdle }

    /// Runs `body` in a transaction (shared with concurrent writers) and returns once it commits.
    func write<Value: Sendable>(_ body: @escaping @Sendable (SQLiteConnection) async throws -> Value) async throws -> Value {
        try await groups.write(key: Self.key, committingWith: { _, members in await self.commit(members) }, body)
    }

    // MARK: - Private

    /// Runs the group's bodies as one transaction and commits it, first without savepoints
    /// (see the type's documentation); then, between two groups with the lead still held, the one
    /// moment the connection is free, rewinds the WAL if asked to (see WALRestartSignal).
    private func commit(_ members: [WriteGroupQueue<SQLiteConnection>.Member]) async -> Result<Void, any Error> {
        defer {
            if restartSignal.take() { _ = try? connection.value.query("PRAGMA wal_checkpoint(RESTART)", []) }
        }
        let outcome = await run(members, inSavepoints: false)
        guard case .failure(let error) = outcome, let failure = error as? BodyFailure else { return outcome }
        return members.count == 1 ? .failure(failure.error) : await run(members, inSavepoints: true)
    }

    /// Runs the bodies in one transaction, each in a savepoint of its own or none, and commits.
    /// Without savepoints, a body's failure comes back as a ``BodyFailure``.
    private func run(_ members: [WriteGroupQueue<SQLiteConnection>.Member], inSavepoints: Bool) async -> Result<Void, any Error> {
        let sqlite = connection.value
        do {
            // IMMEDIATE takes the write lock now, so another process's writer cannot make this
            // transaction fail halfway with SQLITE_BUSY.
            try sqlite.run("BEGIN IMMEDIATE")
            for member in members {
                if inSavepoints {
                    try await member.runInSavepoint(on: sqlite)
                } else {
                    do {
                        try await member.runAlone(on: sqlite)
                    } catch {
                        // Had SQLite rolled the whole transaction back (a full disk, an I/O
                        // error), running the group again would meet the same wall: the failure
                        // is the group's, as a connection's failure is on PostgreSQL.
                        guard sqlite.isInTransaction else { throw error }
                        throw BodyFailure(error: error)
                    }
                }
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
            return .success(())
        } catch {
            try? sqlite.run("ROLLBACK")
            if error is BodyFailure { return .failure(error) }
            return .failure(error as? StoreError ?? StoreError(.database, detail: "\(error)"))
        }
    }

    /// A body of a group failed while the group ran without savepoints.
    private struct BodyFailure: Error {
        var error: any Error
    }
}

extension SQLiteConnection: SavepointConnection {
    func openSavepoint() throws { try run("SAVEPOINT writer") }
    /// Nothing to wait for: SQLite runs each statement as it is sent.
    func awaitSentStatements() {}
    func keepSavepoint() throws { try run("RELEASE writer") }
    func rollBackToSavepoint() throws {
        // An error such as a full disk makes SQLite roll back the whole transaction, not just the
        // failing body's savepoint: then nothing of the group stands.
        guard isInTransaction else { throw StoreError(.database, detail: "SQLite rolled back the group's transaction") }
        try run("ROLLBACK TO writer")
        try run("RELEASE writer")
    }
}
