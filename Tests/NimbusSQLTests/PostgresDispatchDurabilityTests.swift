//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Foundation
import NimbusModel
import NimbusStore
import NimbusTestSupport
import Testing

@testable import NimbusSQL

@Suite(
    "dispatch durability on PostgreSQL",
    .enabled(if: TestDatabase.postgresServer != nil, "needs the PostgreSQL server scripts/test starts"),
    .timeLimit(.minutes(1))
)
struct PostgresDispatchDurabilityTests {
    /// The transaction's `synchronous_commit`.
    private static func setting(_ transaction: any NotificationTransaction) async throws -> String {
        let connection = try #require(transaction as? SQLNotificationTransaction).connection
        return try await connection.query("SHOW synchronous_commit", []).first?.string(0) ?? ""
    }

    @Test("a dispatch that only takes events commits without waiting for its flush; one that writes an entry waits, as configured")
    func flushOnlyForEntries() async throws {
        // The test cluster does not wait for flushes at all: a role of this test's configures
        // its sessions to wait, with a value a hard-coded `on` could not restore.
        let server = try #require(TestDatabase.postgresServer)
        let role = "nimbus_durable_\(UUID().uuidString.prefix(8).lowercased())"
        let administration = TestDatabase(directory: FileManager.default.temporaryDirectory)
        _ = try await administration.inspect("CREATE ROLE \(role) SUPERUSER LOGIN; ALTER ROLE \(role) SET synchronous_commit = 'remote_write'")
        let url = server.replacingOccurrences(of: "://nimbus@", with: "://\(role)@")
        #expect(url != server)
        do {
            try await check(url: url)
            _ = try await administration.inspect("DROP OWNED BY \(role); DROP ROLE \(role)")
        } catch {
            _ = try? await administration.inspect("DROP OWNED BY \(role); DROP ROLE \(role)")
            throw error
        }
    }

    private func check(url: String) async throws {
        try await withTestStore(server: url) { store in
            let container = ContainerEnvironment(container: "iCloud.durability", environment: .development)
            let draft = NotificationDraft(userRecordName: "_reader", notificationID: "n-1", originDeviceID: nil, payload: Array("{}".utf8))
            let (before, taking, delivering) = try await store.dispatch { transaction in
                let before = try await Self.setting(transaction)
                _ = try await transaction.takeEvents(limit: 1)
                let taking = try await Self.setting(transaction)
                _ = try await transaction.deliver([draft], in: container)
                return (before, taking, try await Self.setting(transaction))
            }
            #expect(before == "remote_write")
            #expect(taking == "off")
            #expect(delivering == "remote_write")
            // For that transaction only.
            let after = try await store.dispatch { try await Self.setting($0) }
            #expect(after == "remote_write")
            #expect(try await store.lastSequence(of: "_reader", in: container) == 1)
        }
    }
}
