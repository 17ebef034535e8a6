//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import CSQLite
import NimbusStore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An SQLite database file in WAL mode: one writer connection and a few reader connections.
///
/// WAL lets readers run while a write is in progress and sees each reader's statements in one
/// snapshot. Concurrent writes share commits (``GroupCommitWriter``), and checkpoints run on a
/// thread of their own (``WALCheckpointer``). `synchronous = NORMAL` makes a commit durable
/// across a process crash (the WAL is written before the commit returns) and across power loss up to the last checkpoint, which is
/// the usual trade for a server. Several processes may open the same file (the admin CLI does
/// while the server runs); they take turns at the write lock.
package final class SQLiteDatabase: SQLDatabase {
    package let dialect = SQLDialect.sqlite
    let writer: GroupCommitWriter
    private let readers: ResourcePool<SQLiteConnection>
    private let checkpointer: WALCheckpointer

    /// Opens or creates the database at `path` and brings its schema up to date.
    package static func open(path: String, readerCount: Int = 4) async throws -> SQLiteDatabase {
        let database = try SQLiteDatabase(path: path, readerCount: readerCount)
        try await database.write { connection in
            try await SQLMigrations.migrate(connection, dialect: .sqlite)
            // What a migration wrote into the search index's queue, before groups replay it.
            try await SearchIndexQueue.apply(on: connection)
        }
        database.writer.runBeforeEachCommit(SearchIndexQueue.replayWhenFullStatements)
        return database
    }

    private init(path: String, readerCount: Int) throws {
        let writeConnection = try SQLiteConnection(path: path, readOnly: false)
        // Switching a new file to WAL while another process (a second `nimbus`, the admin CLI)
        // does the same answers SQLITE_BUSY at once, without waiting in the busy handler: retry
        // for up to ten seconds, as the busy timeout would.
        var attempts = 0
        while true {
            do {
                try writeConnection.executeScript(
                    """
                    PRAGMA page_size = 2048;
                    PRAGMA journal_mode = WAL;
                    PRAGMA synchronous = NORMAL;
                    PRAGMA foreign_keys = OFF;
                    PRAGMA temp_store = MEMORY;
                    PRAGMA cache_size = -65536;
                    PRAGMA wal_autocheckpoint = 0;
                    """
                )
                break
            } catch let error as StoreError where error.isBusy && attempts < 200 {
                attempts += 1
                usleep(50_000)
            }
        }
        let readConnections = try (0..<max(1, readerCount)).map { _ in
            let connection = try SQLiteConnection(path: path, readOnly: true)
            // A large page cache and memory-mapped reads keep hot pages out of read(2) calls.
            try connection.executeScript("PRAGMA temp_store = MEMORY; PRAGMA cache_size = -32768; PRAGMA mmap_size = 268435456;")
            return connection
        }
        let restartSignal = WALRestartSignal()
        writer = GroupCommitWriter(writeConnection, restartSignal: restartSignal)
        readers = ResourcePool(readConnections)
        checkpointer = WALCheckpointer(path: path, restartSignal: restartSignal)
        try checkpointer.start()
    }

    package func read<Result: Sendable>(
        _ body: @escaping @Sendable (any SQLConnection) async throws -> Result
    ) async throws -> Result {
        try await readers.withResource { connection in
            try connection.run("BEGIN")
            do {
                let result = try await body(connection)
                try connection.run("COMMIT")
                return result
            } catch {
                try? connection.run("ROLLBACK")
                throw error
            }
        }
    }

    /// SQLite plans a statement when it is prepared, for every value: `reusingPlan` changes nothing.
    package func readStatement(_ sql: String, _ binds: [SQLValue], reusingPlan: Bool) async throws -> [SQLRow] {
        try await readers.withResource { connection in try connection.query(sql, binds) }
    }

    /// SQLite has one writer at a time already; the key changes nothing.
    package func write<Result: Sendable>(
        serializing key: String?,
        _ body: @escaping @Sendable (any SQLConnection) async throws -> Result
    ) async throws -> Result {
        try await writer.write { connection in try await body(connection) }
    }

    /// SQLite has one writer at a time already: every turn is taken.
    package func write<Result: Sendable>(
        takingTurnOf key: String,
        _ body: @escaping @Sendable (_ connection: any SQLConnection, _ turn: String) async throws -> Result
    ) async throws -> Result {
        try await writer.write { connection in try await body(connection, "1 = 1") }
    }

    package func createIndexIfMissing(named name: String, on table: String, columns: String, where predicate: String) async throws -> Bool {
        try await write { connection in
            try await connection.execute("CREATE INDEX IF NOT EXISTS \(name) ON \(table) (\(columns)) WHERE \(predicate)")
        }
        return true
    }

    /// The connections are opened and closed with the database: there is no pool to run.
    package func run() async {}

    /// One process writes an SQLite file's notifications and serves them: nothing to listen to.
    package func listen(channel: String, _ receive: @escaping @Sendable (String) -> Void) async throws {}

    /// Closes the connections once no statement runs on them, waiting at most five seconds.
    ///
    /// A shutdown that timed out may close the store while cancelled work still runs a
    /// statement; closing a connection under it would free what the statement uses. Should
    /// work still run after five seconds, the connections stay open for the process's end.
    package func close() async {
        await checkpointer.stop()
        let writer = writer
        let readers = readers
        // An unstructured task: a cancelled caller's sleeps would return at once and spin.
        let quiet = await Task {
            let deadline = ContinuousClock.now + .seconds(5)
            while !(writer.isIdle && readers.isIdle) {
                guard ContinuousClock.now < deadline else { return false }
                try? await Task.sleep(for: .milliseconds(10))
            }
            return true
        }.value
        guard quiet else { return }
        // The index holds every change when the store closes: with the writer idle, this group
        // runs at once. Should it fail, the next open replays what is left.
        _ = try? await writer.write { connection in try await SearchIndexQueue.apply(on: connection) }
        for connection in readers.all + [writer.underlyingConnection] { connection.close() }
    }
}
