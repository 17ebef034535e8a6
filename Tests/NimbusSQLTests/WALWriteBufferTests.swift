//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import CNimbusSQLite
import CSQLite
import Foundation
import Testing

@testable import NimbusSQL

/// The "nimbus" VFS gathers a connection's WAL writes and writes them out when a commit frame
/// is complete. What must hold: a commit is in the file before anyone can see it, and nothing
/// SQLite wrote is lost or misplaced, whatever order its writes, reads and rollbacks come in.
@Suite("WAL writes gathered per commit")
struct WALWriteBufferTests {
    private static func withPath(_ body: (String) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nimbus-wal-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try await body(directory.appendingPathComponent("store.sqlite").path)
    }

    /// Copies the database and its WAL as they are on disk now, as a crash would leave them, and
    /// opens the copy: SQLite recovers from the WAL what was committed.
    private static func openCrashCopy(of path: String) throws -> SQLiteConnection {
        let copy = path + "-crash-copy"
        for suffix in ["", "-wal"] {
            try? FileManager.default.removeItem(atPath: copy + suffix)
            try FileManager.default.copyItem(atPath: path + suffix, toPath: copy + suffix)
        }
        return try SQLiteConnection(path: copy, readOnly: false)
    }

    /// A connection set up as the server's writer is (2 KiB pages, WAL, no sync at commit, no
    /// automatic checkpoint), but with a page cache of ten pages, so that a transaction of a
    /// few thousand rows spills frames into the WAL before it commits; and a table `t`.
    private static func spillingWriter(at path: String) throws -> SQLiteConnection {
        let connection = try SQLiteConnection(path: path, readOnly: false)
        try connection.executeScript(
            """
            PRAGMA page_size = 2048; PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA wal_autocheckpoint = 0;
            PRAGMA cache_size = 10;
            CREATE TABLE t (k INTEGER PRIMARY KEY, v BLOB);
            """
        )
        return connection
    }

    /// The numbers 1 to `count` as a table with one column, `value` (Debian's SQLite has no
    /// `generate_series`).
    private static func series(_ count: Int) -> String {
        "(WITH RECURSIVE n(value) AS (SELECT 1 UNION ALL SELECT value + 1 FROM n WHERE value < \(count)) SELECT value FROM n)"
    }

    private static func integrityCheck(_ connection: SQLiteConnection) throws -> String {
        try connection.query("PRAGMA integrity_check", []).first?.string(0) ?? "no answer"
    }

    @Test("connections open through the nimbus VFS, and a commit's frames reach the file in a few writes")
    func fewWritesPerCommit() async throws {
        try await Self.withPath { path in
            #expect(SQLiteConnection.vfs == NIMBUS_SQLITE_VFS_NAME)
            let connection = try SQLiteConnection(path: path, readOnly: false)
            defer { connection.close() }
            try connection.executeScript("PRAGMA page_size = 2048; PRAGMA journal_mode = WAL; CREATE TABLE t (v BLOB);")
            let before = try #require(connection.walWriteCounts)
            // About 250 pages: two writes each from SQLite, header and page.
            try connection.executeScript("BEGIN; INSERT INTO t SELECT randomblob(1000) FROM \(Self.series(500)); COMMIT;")
            let after = try #require(connection.walWriteCounts)
            let sqliteWrites = after.sqliteWrites - before.sqliteWrites
            let fileWrites = after.fileWrites - before.fileWrites
            #expect(sqliteWrites >= 500)
            #expect(fileWrites * 10 < sqliteWrites, "\(fileWrites) file writes for \(sqliteWrites) of SQLite's")
        }
    }

    @Test("every write is visible to the other connections once it returns, while checkpoints run")
    func commitsVisibleAtOnce() async throws {
        try await Self.withPath { path in
            let database = try await SQLiteDatabase.open(path: path)
            try await database.write { connection in
                try await connection.execute("CREATE TABLE t (task INTEGER, step INTEGER, v BLOB)")
            }
            // Writers share group commits; each reads its own write back through a reader
            // connection straight after, some writes large enough to pass the 1 MiB buffer.
            try await withThrowingTaskGroup(of: Void.self) { group in
                for task in 0..<4 {
                    group.addTask {
                        for step in 0..<60 {
                            let rows = step % 20 == 19 ? 800 : 1
                            try await database.write { connection in
                                try await connection.execute(
                                    "WITH RECURSIVE n(value) AS (SELECT 1 UNION ALL SELECT value + 1 FROM n WHERE value < ?) INSERT INTO t SELECT ?, ?, randomblob(1500) FROM n",
                                    [.integer(Int64(rows)), .integer(Int64(task)), .integer(Int64(step))]
                                )
                            }
                            let seen = try await database.readStatement(
                                "SELECT count(*) FROM t WHERE task = ? AND step = ?",
                                [.integer(Int64(task)), .integer(Int64(step))]
                            )
                            #expect(seen.first?.int(0) == Int64(rows), "task \(task) step \(step)")
                        }
                    }
                }
                try await group.waitForAll()
            }
            await database.close()

            let reopened = try SQLiteConnection(path: path, readOnly: false)
            defer { reopened.close() }
            #expect(try Self.integrityCheck(reopened) == "ok")
            #expect(try reopened.query("SELECT count(*) FROM t", []).first?.int(0) == 4 * (57 + 3 * 800))
        }
    }

    @Test("frames spilled before commit are read back, and rolled back, as SQLite wrote them")
    func spillsAndRollbacks() async throws {
        try await Self.withPath { path in
            // The transactions spill frames into the WAL before they end, and read them back.
            let writer = try Self.spillingWriter(at: path)
            defer { writer.close() }
            try writer.executeScript("BEGIN; INSERT INTO t SELECT value, randomblob(700) FROM \(Self.series(2000));")
            #expect((writer.walWriteCounts?.sqliteWrites ?? 0) > 0, "the transaction spilled frames before its end")
            #expect(try writer.query("SELECT count(*), sum(length(v)) FROM t", []).first?.int(1) == 2000 * 700)
            try writer.executeScript("ROLLBACK;")
            try writer.executeScript("BEGIN; INSERT INTO t SELECT value, zeroblob(300) FROM \(Self.series(1500));")
            try writer.executeScript("SAVEPOINT s; UPDATE t SET v = randomblob(900) WHERE k % 2 = 0; ROLLBACK TO s; RELEASE s;")
            try writer.executeScript("UPDATE t SET v = zeroblob(500) WHERE k % 3 = 0; COMMIT;")

            let reader = try SQLiteConnection(path: path, readOnly: true)
            defer { reader.close() }
            let row = try #require(try reader.query("SELECT count(*), sum(length(v)) FROM t", []).first)
            #expect(row.int(0) == 1500)
            #expect(row.int(1) == 500 * 500 + 1000 * 300)
            #expect(try Self.integrityCheck(writer) == "ok")
        }
    }

    @Test("a commit that changed spilled pages again survives a crash")
    func rewrittenChecksumsReachTheFile() async throws {
        try await Self.withPath { path in
            // Spilled pages changed again before commit make SQLite rewrite the frame headers
            // after the commit frame, the commit frame's last: they must reach the file too.
            // (A sync at commit or an automatic checkpoint would write them out anyway; the
            // server has neither.)
            let writer = try Self.spillingWriter(at: path)
            defer { writer.close() }
            try writer.executeScript("BEGIN; INSERT INTO t SELECT value, randomblob(700) FROM \(Self.series(2000));")
            let spilled = try #require(writer.walWriteCounts).sqliteWrites
            #expect(spilled > 0, "the transaction spilled frames before its end")
            try writer.executeScript("UPDATE t SET v = randomblob(700) WHERE k <= 100; COMMIT;")
            // The writer stays open, as in a crash: nothing closes or checkpoints the files.
            let recovered = try Self.openCrashCopy(of: path)
            defer { recovered.close() }
            #expect(try recovered.query("SELECT count(*) FROM t", []).first?.int(0) == 2000)
            #expect(try Self.integrityCheck(recovered) == "ok")
        }
    }

    @Test("frames of a rolled-back transaction never overwrite another writer's commit")
    func rollbackThenAnotherWriter() async throws {
        try await Self.withPath { path in
            let first = try Self.spillingWriter(at: path)
            defer { first.close() }
            _ = try first.query("PRAGMA wal_checkpoint(TRUNCATE)", [])
            // The first connection spills frames, then rolls back: the WAL's end goes back to
            // where it was, and the second connection writes its commit over those offsets.
            try first.executeScript("BEGIN; INSERT INTO t SELECT value, randomblob(500) FROM \(Self.series(1000));")
            #expect((first.walWriteCounts?.sqliteWrites ?? 0) > 0, "the transaction spilled frames before its end")
            try first.executeScript("ROLLBACK;")
            let second = try SQLiteConnection(path: path, readOnly: false)
            defer { second.close() }
            try second.executeScript("INSERT INTO t SELECT value, zeroblob(300) FROM \(Self.series(101));")
            #expect(try first.query("SELECT count(*) FROM t", []).first?.int(0) == 101)
            #expect(try second.query("SELECT count(*) FROM t", []).first?.int(0) == 101)
            #expect(try Self.integrityCheck(second) == "ok")
            let recovered = try Self.openCrashCopy(of: path)
            defer { recovered.close() }
            #expect(try recovered.query("SELECT count(*) FROM t", []).first?.int(0) == 101)
        }
    }
}
