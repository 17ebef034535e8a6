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
import NimbusAPNs
import NimbusEngine
import NimbusModel
import NimbusServer
import NimbusStore
import NimbusTestSupport
import NimbusTesting
import Synchronization
import Testing

/// A real Nimbus server on an ephemeral port over a temporary data directory, with a
/// container, two signed-in users and the tokens to call it with.
struct HTTPFixture: Sendable {
    static let container = "iCloud.test.http"
    let directory: URL
    /// The database the server runs on, for looking into it as an operator would.
    let database: TestDatabase
    let instance: NimbusInstance
    let clock: ManualClock
    let apiToken: String
    let alice: NimbusEngine.AccountService.NewUser
    let bob: NimbusEngine.AccountService.NewUser
    /// The mail the server sent.
    let mail: TestMailbox

    /// Runs `body` against a live server and removes everything afterwards.
    static func with(
        signatureWindowSeconds: Int = 300,
        postgresServer: String? = TestDatabase.postgresServer,
        apns: APNsConfiguration? = nil,
        logLevel: Logger.Level = .notice,
        seed: (TestDatabase) async throws -> Void = { _ in },
        configure: (inout ServerConfiguration) -> Void = { _ in },
        _ body: @escaping @Sendable (HTTPFixture, any TestClientProtocol) async throws -> Void
    ) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nimbus-http-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = TestDatabase(directory: directory, server: postgresServer)
        try await seed(database)
        // At the real time, so requests signed now are inside the date window.
        let clock = ManualClock(start: SystemClock().now)
        var logger = Logger(label: "test")
        // Above info by default: the access log would add a line per request to the suite's output.
        logger.logLevel = logLevel
        if let level = ProcessInfo.processInfo.environment["NIMBUS_TEST_LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) { logger.logLevel = level }
        let configuration = ServerConfiguration(
            dataDirectory: directory.path,
            databaseURL: database.postgresURL,
            port: 0,
            publicBaseURL: "http://nimbus.test",
            signatureDateWindowSeconds: signatureWindowSeconds,
            apns: apns
        )
        // Passwords hashed at a low cost: the suite checks behaviour, BENCHMARKS.md the cost.
        var configured = configuration
        configured.passwordHashing = .init(logRounds: 10)
        configure(&configured)
        let mail = TestMailbox()
        let instance = try await NimbusInstance.open(configured, logger: logger, clock: clock, mailer: mail)
        // The users are made once the store serves and before the server listens: the test
        // client connects at once, and a connection that sends nothing is closed after the
        // first-byte timeout, which a slow set-up under a loaded suite could outlast.
        let made = Made()
        let app = NimbusServer.makeApplication(instance, logger: logger) {
            let created = try await instance.accounts.createContainer(container, environment: .development)
            let alice = try await instance.accounts.addUser(name: "Alice Liddell", email: "alice@example.com", phone: nil, container: container)
            let bob = try await instance.accounts.addUser(name: "Bob", email: nil, phone: nil, container: container)
            made.set((created.apiToken, alice, bob))
        }
        try await app.test(.live) { client in
            let (apiToken, alice, bob) = try #require(made.value)
            let fixture = HTTPFixture(
                directory: directory,
                database: database,
                instance: instance,
                clock: clock,
                apiToken: apiToken,
                alice: alice,
                bob: bob,
                mail: mail
            )
            try await body(fixture, client)
        }
    }

    /// `/database/1/{container}/development/{scope}/{operation}?ckAPIToken=...[&ckWebAuthToken=...]`
    func path(_ operation: String, scope: String = "private", user: String? = nil) -> String {
        var query = "ckAPIToken=\(apiToken)"
        if let user {
            query += "&ckWebAuthToken=" + user.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        }
        return "/database/1/\(Self.container)/development/\(scope)/\(operation)?\(query)"
    }

    /// The database access of a user, for checking what the store holds without HTTP.
    func access(_ user: NimbusEngine.AccountService.NewUser, scope: DatabaseScope = .private) -> DatabaseAccess {
        DatabaseAccess(
            caller: Caller(container: Self.container, environment: .development, kind: .user, userRecordName: user.user.userRecordName),
            scope: scope
        )
    }

    /// Whether a record exists, asked of the engine directly.
    func recordExists(_ name: String, zone: String, user: NimbusEngine.AccountService.NewUser) async -> Bool {
        let result = try? await instance.database.lookupRecords(
            named: [name],
            inZone: ZoneID(zoneName: zone, ownerRecordName: ""),
            access: access(user)
        )
        if case .success = result?.first { return true }
        return false
    }
}

extension TestClientProtocol {
    /// Sends a request with a body and returns the response.
    func send(_ method: HTTPRequest.Method, _ uri: String, json: String? = nil, headers: HTTPFields = [:]) async throws -> TestResponse {
        try await execute(uri: uri, method: method, headers: headers, body: json.map { ByteBuffer(string: $0) }) { $0 }
    }
}

extension TestResponse {
    /// The body as a JSON object.
    var json: [String: Any] {
        get throws {
            let object = try JSONSerialization.jsonObject(with: Data(body.readableBytesView))
            guard let dictionary = object as? [String: Any] else { throw FixtureFailure("body is not a JSON object") }
            return dictionary
        }
    }

    /// Checks the body is a CloudKit error dictionary with this code and returns its reason.
    @discardableResult
    func expectError(_ code: String, status expected: HTTPResponse.Status, sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        #expect(status == expected, sourceLocation: sourceLocation)
        let body = try json
        #expect(body["serverErrorCode"] as? String == code, "body: \(body)", sourceLocation: sourceLocation)
        #expect((body["uuid"] as? String) == headers[HTTPField.Name("X-Apple-Request-UUID")!], sourceLocation: sourceLocation)
        let reason = body["reason"] as? String
        #expect(reason?.isEmpty == false, sourceLocation: sourceLocation)
        return reason ?? ""
    }
}

struct FixtureFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// What the fixture's set-up made, handed from the server's start to the test.
private final class Made: Sendable {
    private let state = Mutex<(String, AccountService.NewUser, AccountService.NewUser)?>(nil)

    var value: (String, AccountService.NewUser, AccountService.NewUser)? { state.withLock { $0 } }

    func set(_ made: (String, AccountService.NewUser, AccountService.NewUser)) {
        state.withLock { $0 = made }
    }
}
