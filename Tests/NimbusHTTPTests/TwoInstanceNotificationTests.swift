//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NimbusServer
import NimbusTestSupport
import Testing

/// Two server instances on one PostgreSQL database: a change written through one reaches
/// WebSocket connections held by the other, through the database's own LISTEN/NOTIFY, and each
/// notification is pushed to APNs once, not once per instance.
@Suite("notifications across server instances", .enabled(if: TestDatabase.postgresServer != nil, "needs the PostgreSQL server scripts/test starts"))
struct TwoInstanceNotificationTests {
    @Test("a write through one instance reaches a WebSocket connected to the other; APNs gets each push once")
    func acrossInstances() async throws {
        try await FakeAPNs.with(topic: "test.two") { fake, url in try await Self.acrossInstances(fake, url) }
    }

    static func acrossInstances(_ fake: FakeAPNs, _ url: String) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nimbus-two-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = TestDatabase(directory: directory)
        let logger = {
            var logger = Logger(label: "test")
            logger.logLevel = .notice
            return logger
        }()
        func open(_ name: String) async throws -> NimbusInstance {
            let configuration = ServerConfiguration(
                dataDirectory: directory.appendingPathComponent(name).path,
                databaseURL: database.postgresURL,
                port: 0,
                publicBaseURL: "http://nimbus.test",
                // Both instances must seal and encrypt alike, as a deployment's would.
                fieldEncryptionKey: String(repeating: "A", count: 43) + "=",
                tokenKey: String(repeating: "B", count: 43) + "=",
                apns: APNsDeliveryTests.configuration(fake, url: url)
            )
            return try await NimbusInstance.open(configuration, logger: logger)
        }
        let first = try await open("a")
        let second = try await open("b")
        let container = "iCloud.test.two"

        // Each application runs its instance's services (the store first) while it runs.
        try await NimbusServer.makeApplication(first, logger: logger).test(.live) { writer in
            try await NimbusServer.makeApplication(second, logger: logger).test(.live) { reader in
                let created = try await first.accounts.createContainer(container, environment: .development)
                let alice = try await first.accounts.addUser(name: "Alice", email: nil, phone: nil, container: container)
                let token = alice.webAuthToken.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
                let query = "ckAPIToken=\(created.apiToken)&ckWebAuthToken=\(token)"
                let subscribed = try await writer.send(
                    .post,
                    "/database/1/\(container)/development/private/subscriptions/modify?\(query)",
                    json: #"{"operations": [{"operationType": "create", "subscription": {"subscriptionID": "all", "subscriptionType": "database"}}]}"#
                )
                #expect(subscribed.status == .ok)
                let device = String(repeating: "e", count: 64)
                let registered = try await writer.send(
                    .post,
                    "/database/1/\(container)/development/tokens/register?\(query)",
                    json: #"{"apnsEnvironment": "production", "apnsToken": "\#(device)"}"#
                )
                #expect(registered.status == .ok)
                let port = try #require(reader.port)
                let socket = try await NotificationSocketTests.SocketProbe.open(
                    "ws://127.0.0.1:\(port)/database/1/\(container)/development/notifications/ws?\(query)"
                )
                defer { socket.close() }
                for index in 1...3 {
                    let saved = try await writer.send(
                        .post,
                        "/database/1/\(container)/development/private/records/modify?\(query)",
                        json:
                            #"{"operations": [{"operationType": "create", "record": {"recordName": "n\#(index)", "recordType": "Note", "fields": {}}}]}"#
                    )
                    #expect(saved.status == .ok)
                    let message = await socket.next()
                    #expect(message?["sequence"] as? Int == index, "message \(index) did not cross instances: \(String(describing: message))")
                }
                // Both instances hear of every entry; the lease on the token lets one push it. A
                // fourth change proves the check: a second push of an entry would come before the
                // fourth entry's, which follows it in the token's inbox.
                _ = try await fake.waitForRequests(3)
                let fourth = try await writer.send(
                    .post,
                    "/database/1/\(container)/development/private/records/modify?\(query)",
                    json: #"{"operations": [{"operationType": "create", "record": {"recordName": "n4", "recordType": "Note", "fields": {}}}]}"#
                )
                #expect(fourth.status == .ok)
                let pushes = try await fake.waitForRequests(4)
                #expect(pushes.count == 4, "\(pushes.map { $0.headers["apns-id"] ?? "" })")
                #expect(Set(pushes.compactMap { $0.headers["apns-id"] }).count == 4)
                #expect(pushes.allSatisfy { $0.problem == nil && $0.deviceToken == device })
            }
        }
    }
}
