//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Foundation

@testable import NimbusSQL

/// Runs `body` on a connection to a new SQLite file in the temporary directory, closed and
/// removed afterwards.
func withTemporarySQLiteConnection<Result>(_ body: (SQLiteConnection) async throws -> Result) async throws -> Result {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("nimbus-connection-\(UUID().uuidString).sqlite").path
    defer {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }
    let connection = try SQLiteConnection(path: path, readOnly: false)
    defer { connection.close() }
    return try await body(connection)
}
