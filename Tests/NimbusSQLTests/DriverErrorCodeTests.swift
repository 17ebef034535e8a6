//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Foundation
import NimbusStore
import NimbusTestSupport
import Testing

@testable import NimbusSQL

/// Store failures are told apart by the driver's code, never by its message text, on both stores.
@Suite("driver failures by their codes")
struct DriverErrorCodeTests {
    @Test("a unique violation is alreadyExists; any other broken constraint is a store defect, not a duplicate")
    func constraints() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nimbus-codes-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = TestDatabase(directory: directory)
        let store = try await database.open(cipher: FieldCipher(keyBytes: Array(repeating: 5, count: 32))!)
        defer { Task { await store.close() } }
        try await store.database.write(serializing: nil) { connection in
            try await connection.execute("CREATE TABLE coded (name TEXT PRIMARY KEY, size INTEGER NOT NULL CHECK (size > 0))")
            try await connection.execute("INSERT INTO coded (name, size) VALUES ('a', 1)")
        }
        let duplicate = await failure { try await connection(store) { try await $0.execute("INSERT INTO coded (name, size) VALUES ('a', 2)") } }
        #expect(duplicate?.kind == .alreadyExists)
        #expect(duplicate?.driverCode == (database.isPostgres ? .postgres("23505") : .sqlite(1555)))
        let missing = await failure { try await connection(store) { try await $0.execute("INSERT INTO coded (name) VALUES ('b')") } }
        #expect(missing?.kind == .constraintViolation)
        #expect(missing?.driverCode == (database.isPostgres ? .postgres("23502") : .sqlite(1299)))
        let negative = await failure { try await connection(store) { try await $0.execute("INSERT INTO coded (name, size) VALUES ('c', -1)") } }
        #expect(negative?.kind == .constraintViolation)
        #expect(negative?.driverCode == (database.isPostgres ? .postgres("23514") : .sqlite(275)))
        #expect(try await database.inspect("SELECT COUNT(*) FROM coded") == "1", "a refused write leaves nothing behind")
    }

    @Test("SQLite's busy is its result code: a writer that finds the lock taken is told so")
    func busy() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("nimbus-busy-\(UUID().uuidString).sqlite").path
        defer {
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        }
        let holder = try SQLiteConnection(path: path, readOnly: false)
        defer { holder.close() }
        try holder.executeScript("PRAGMA journal_mode = WAL; CREATE TABLE t (x INTEGER); BEGIN IMMEDIATE; INSERT INTO t VALUES (1);")
        let waiter = try SQLiteConnection(path: path, readOnly: false)
        defer { waiter.close() }
        try waiter.executeScript("PRAGMA busy_timeout = 0;")
        #expect {
            try waiter.executeScript("BEGIN IMMEDIATE;")
        } throws: { error in
            guard let error = error as? StoreError else { return false }
            return error.isBusy && error.driverCode == .sqlite(5)
        }
        try holder.executeScript("COMMIT;")
        try waiter.executeScript("BEGIN IMMEDIATE; INSERT INTO t VALUES (2); COMMIT;")
    }

    private func connection(_ store: SQLStore, _ body: @escaping @Sendable (any SQLConnection) async throws -> Void) async throws {
        try await store.database.write(serializing: nil, body)
    }

    private func failure(_ body: () async throws -> Void) async -> StoreError? {
        do {
            try await body()
            Issue.record("the statement succeeded")
            return nil
        } catch let error as StoreError {
            return error
        } catch {
            Issue.record("not a store error: \(String(reflecting: error))")
            return nil
        }
    }
}
