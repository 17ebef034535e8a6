//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Foundation
import Testing

@testable import NimbusSQL

@Suite("closing the SQLite store")
struct SQLiteShutdownTests {
    /// A shutdown whose grace period ran out closes the store while cancelled requests may still
    /// be in a transaction; closing the connection under them would free what they use.
    @Test("close waits for a write still running, and the write commits")
    func closeWaitsForRunningWrite() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nimbus-close-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("store.sqlite").path
        let database = try await SQLiteDatabase.open(path: path)
        try await database.write(serializing: nil) { try await $0.execute("CREATE TABLE t (v BIGINT)") }
        let started = AsyncStream<Void>.makeStream()
        let write = Task {
            try await database.write(serializing: nil) { connection in
                try await connection.execute("INSERT INTO t VALUES (1)")
                started.continuation.yield()
                try await Task.sleep(for: .milliseconds(300))
                try await connection.execute("INSERT INTO t VALUES (2)")
            }
        }
        for await _ in started.stream { break }
        await database.close()
        try await write.value

        let reopened = try await SQLiteDatabase.open(path: path)
        let rows = try await reopened.readStatement("SELECT COUNT(*) FROM t", [])
        #expect(rows.first?.int(0) == 2)
        await reopened.close()
    }
}
