//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Foundation
import HummingbirdTesting
import Logging
import NimbusClient
import NimbusEngine
import NimbusModel
import NimbusServer
import NimbusTestSupport

/// A live Nimbus server on a loopback port, on the suite's database (SQLite, or PostgreSQL when
/// the test script provides one), with a container and two signed-in users; and SDK containers
/// pointed at it.
struct ClientFixture: Sendable {
    static let containerID = "iCloud.com.example.client"
    let url: String
    let apiToken: String
    let alice: AccountService.NewUser
    let bob: AccountService.NewUser
    let instance: NimbusInstance

    /// A container signed in as `user`, over the real HTTP transport.
    func container(as user: AccountService.NewUser, retryPolicy: RetryPolicy = RetryPolicy()) -> Container {
        Container(
            serverURL: url,
            identifier: Self.containerID,
            authentication: .apiToken(apiToken, webAuthToken: user.webAuthToken),
            retryPolicy: retryPolicy
        )
    }

    /// Runs `body` against a fresh server and removes everything afterwards.
    static func with(_ body: @escaping @Sendable (ClientFixture) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nimbus-client-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = TestDatabase(directory: directory)
        var logger = Logger(label: "test")
        logger.logLevel = .warning
        let configuration = ServerConfiguration(dataDirectory: directory.path, databaseURL: database.postgresURL, port: 0)
        let instance = try await NimbusInstance.open(configuration, logger: logger)
        let created = try await instance.accounts.createContainer(containerID, environment: .development)
        let alice = try await instance.accounts.addUser(name: "Alice", email: "alice@example.com", phone: nil, container: containerID)
        let bob = try await instance.accounts.addUser(name: "Bob", email: "bob@example.com", phone: nil, container: containerID)
        let app = NimbusServer.makeApplication(instance, logger: logger)
        try await app.test(.live) { client in
            guard let port = client.port else { throw FixtureError("the live test server has no port") }
            try await body(
                ClientFixture(url: "http://127.0.0.1:\(port)", apiToken: created.apiToken, alice: alice, bob: bob, instance: instance)
            )
        }
    }
}

struct FixtureError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

extension Record {
    /// A new record to save, with no change tag (so it must not exist yet).
    static func note(_ name: String, in zoneID: ZoneID, _ fields: [String: FieldValue] = [:]) -> Record {
        Record(recordType: "Note", recordID: RecordID(recordName: name, zoneID: zoneID), fields: fields)
    }
}
