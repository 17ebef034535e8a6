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

@testable import NimbusTesting

/// A Nimbus server in the test process, on the suite's database (SQLite, or PostgreSQL when the
/// test script provides one), with a container and two signed-in users; and SDK containers
/// pointed at it, over a loopback port or through `NimbusTesting`'s in-process transport.
struct ClientFixture: Sendable {
    /// How the SDK reaches the server.
    enum Route: String, CaseIterable, Sendable {
        /// HTTP over a loopback port, with the SDK's default transport.
        case loopback
        /// The transport `InProcessNimbus` gives app tests: no socket.
        case inProcess
    }

    static let containerID = "iCloud.com.example.client"
    let url: String
    let apiToken: String
    let alice: AccountService.NewUser
    let bob: AccountService.NewUser
    let instance: NimbusInstance
    let route: Route
    let transport: any ClientTransport

    /// A container signed in as `user`, over the fixture's route.
    func container(as user: AccountService.NewUser, retryPolicy: RetryPolicy = RetryPolicy()) -> Container {
        Container(
            serverURL: url,
            identifier: Self.containerID,
            authentication: .apiToken(apiToken, webAuthToken: user.webAuthToken),
            transport: transport,
            retryPolicy: retryPolicy
        )
    }

    /// Runs `body` against a fresh server for each route, and removes everything afterwards: the
    /// SDK's every method is tested over HTTP and through the in-process transport app tests use.
    static func with(over routes: [Route] = Route.allCases, _ body: @escaping @Sendable (ClientFixture) async throws -> Void) async throws {
        for route in routes { try await with(route, body) }
    }

    private static func with(_ route: Route, _ body: @escaping @Sendable (ClientFixture) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nimbus-client-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = TestDatabase(directory: directory)
        var logger = Logger(label: "test")
        logger.logLevel = .warning
        let configuration = ServerConfiguration(dataDirectory: directory.path, databaseURL: database.postgresURL, port: 0)
        let instance = try await NimbusInstance.open(configuration, logger: logger)
        // The store serves while the instance's services run: users are added once they do.
        @Sendable func fixture(url: String, transport: any ClientTransport) async throws -> ClientFixture {
            let created = try await instance.accounts.createContainer(containerID, environment: .development)
            let alice = try await instance.accounts.addUser(name: "Alice", email: "alice@example.com", phone: nil, container: containerID)
            let bob = try await instance.accounts.addUser(name: "Bob", email: "bob@example.com", phone: nil, container: containerID)
            return ClientFixture(
                url: url,
                apiToken: created.apiToken,
                alice: alice,
                bob: bob,
                instance: instance,
                route: route,
                transport: transport
            )
        }
        if route == .inProcess {
            // Notifications are delivered as a server delivers them.
            let transport = InProcessTransport(responder: NimbusServer.makeResponder(instance, logger: logger), logger: logger)
            try await instance.withServices {
                try await body(try await fixture(url: "http://nimbus.in-process", transport: transport))
            }
            return
        }
        let app = NimbusServer.makeApplication(instance, logger: logger)
        try await app.test(.live) { client in
            guard let port = client.port else { throw FixtureError("the live test server has no port") }
            try await body(try await fixture(url: "http://127.0.0.1:\(port)", transport: Container.defaultTransport()))
        }
    }
}

struct FixtureError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

extension Record {
    /// A new record to save, with no change tag (so it must not exist yet).
    static func note(_ name: String, in zoneID: ZoneID, _ fields: [NameKey: FieldValue] = [:]) -> Record {
        Record(recordType: "Note", recordID: RecordID(recordName: name, zoneID: zoneID), fields: fields)
    }
}
