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

/// Announcements (`NOTIFY`) belong to a store's schema: stores of two deployments in two
/// schemas of one database do not wake each other.
@Suite(
    "inbox announcements on PostgreSQL",
    .enabled(if: TestDatabase.postgresServer != nil, "needs the PostgreSQL server scripts/test starts"),
    .timeLimit(.minutes(1))
)
struct PostgresAnnouncementTests {
    private static func announce(_ store: SQLStore, from instance: String) async throws {
        let entry = InboxEntry(
            container: ContainerEnvironment(container: "iCloud.test.announce", environment: .development),
            userRecordName: "_alice",
            sequence: 1,
            notificationID: UUID().uuidString,
            originDeviceID: nil,
            createdAt: 0,
            payload: []
        )
        try await store.dispatch { try await $0.announce([entry], from: instance) }
    }

    @Test("a store hears the announcements of its own schema's stores, not those of another schema")
    func ownSchemaOnly() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nimbus-announce-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let cipher = FieldCipher(keyBytes: Array(repeating: 5, count: 32))!
        let ours = TestDatabase(directory: directory.appendingPathComponent("ours"))
        let theirs = TestDatabase(directory: directory.appendingPathComponent("theirs"))
        let listener = try await ours.open(cipher: cipher)
        let neighbour = try await ours.open(cipher: cipher)
        let stranger = try await theirs.open(cipher: cipher)

        let (heard, hearing) = AsyncStream.makeStream(of: String.self)
        let following = Task { try await listener.followAnnouncements { hearing.yield($0.instance) } }
        defer { following.cancel() }
        var announcements = heard.makeAsyncIterator()
        // LISTEN starts on a connection of its own, at a moment nothing reports: the neighbour
        // announces until the listener hears one, and from then on it hears everything.
        let ready = Task {
            while !Task.isCancelled {
                try await Self.announce(neighbour, from: "probe")
                try await Task.sleep(for: .milliseconds(100))
            }
        }
        #expect(await announcements.next() == "probe")
        ready.cancel()
        _ = await ready.result

        // Committed in this order, delivered in this order: a store that heard the other
        // schema's announcement hears it before the neighbour's.
        try await Self.announce(stranger, from: "other schema")
        try await Self.announce(neighbour, from: "same schema")
        var next = await announcements.next()
        while next == "probe" { next = await announcements.next() }
        #expect(next == "same schema")
        following.cancel()
        for store in [listener, neighbour, stranger] { await store.close() }
    }
}
