//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Foundation
import NimbusStore
import NimbusTestSupport

@testable import NimbusSQL

/// Runs `body` on a store of its own (a schema of its own on PostgreSQL, at `server`), closed
/// afterwards whether or not `body` throws.
func withTestStore(server: String? = TestDatabase.postgresServer, _ body: (SQLStore) async throws -> Void) async throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nimbus-store-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let store = try await TestDatabase(directory: directory, server: server).open(cipher: FieldCipher(keyBytes: Array(repeating: 3, count: 32))!)
    do {
        try await body(store)
        await store.close()
    } catch {
        await store.close()
        throw error
    }
}
