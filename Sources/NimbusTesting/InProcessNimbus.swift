//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import Logging
public import NimbusClient
import NimbusEngine
public import NimbusModel
import NimbusServer
import NimbusStore
import ServiceLifecycle

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A whole Nimbus server inside a test: the real engine on a temporary SQLite database, reached
/// through the SDK without a socket.
///
/// Start one per test, add users, and get SDK containers signed in as them; everything is thrown
/// away at the end:
///
/// ```swift
/// try await InProcessNimbus.with { nimbus in
///     let alice = try await nimbus.addUser(name: "Alice")
///     let database = nimbus.container(as: alice).privateCloudDatabase
///     try await database.save(zones: [ZoneID(zoneName: "Notes", ownerRecordName: "")])
/// }
/// ```
public final class InProcessNimbus: Sendable {
    /// A user of the test server, signed in.
    public struct User: Sendable {
        /// The user's record name, as records' `created.userRecordName` shows it.
        public var userRecordName: String
        /// A web auth token for the user.
        public var webAuthToken: String

        /// A user signed in with a token got elsewhere (a sign-in through the SDK, say).
        public init(userRecordName: String, webAuthToken: String) {
            self.userRecordName = userRecordName
            self.webAuthToken = webAuthToken
        }
    }

    /// The container the server holds, in its development environment.
    public let containerIdentifier: String
    /// The container's API token.
    public let apiToken: String
    /// The mail the server sent: sign-up and sign-in codes, read as a person reads their inbox.
    public let mail: TestMailbox
    private let instance: NimbusInstance
    private let transport: any ClientTransport
    private let directory: URL
    /// The instance's services, as a server runs them: subscriptions fill inboxes.
    private let services: ServiceGroup
    /// The task that runs ``services``, ended by ``stop()``.
    private let running: Task<Void, Never>

    private init(
        containerIdentifier: String,
        apiToken: String,
        instance: NimbusInstance,
        transport: any ClientTransport,
        directory: URL,
        services: ServiceGroup,
        running: Task<Void, Never>,
        mail: TestMailbox
    ) {
        self.containerIdentifier = containerIdentifier
        self.apiToken = apiToken
        self.mail = mail
        self.instance = instance
        self.transport = transport
        self.directory = directory
        self.services = services
        self.running = running
    }

    /// Starts a server with one container; call ``stop()`` when done (or use
    /// ``with(containerIdentifier:logger:_:)``).
    public static func start(
        containerIdentifier: String = "iCloud.com.example.tests",
        logger: Logger = Logger(label: "nimbus.in-process", factory: { _ in SwiftLogNoOpLogHandler() })
    ) async throws -> InProcessNimbus {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nimbus-in-process-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        do {
            var configuration = ServerConfiguration(dataDirectory: directory.path)
            // Cheap password hashes: a test checks what sign-in does, not what it costs.
            configuration.passwordHashing = .init(logRounds: 10)
            let mail = TestMailbox()
            let instance = try await NimbusInstance.open(configuration, logger: logger, mailer: mail)
            // The services run from `start` to `stop`, which a test spans: no scope to run them in.
            let services = ServiceGroup(configuration: .init(services: instance.services.map { .init(service: $0) }, logger: logger))
            let running = Task { _ = try? await services.run() }
            do {
                let created = try await instance.accounts.createContainer(containerIdentifier, environment: .development)
                let transport = InProcessTransport(responder: NimbusServer.makeResponder(instance, logger: logger), logger: logger)
                return InProcessNimbus(
                    containerIdentifier: containerIdentifier,
                    apiToken: created.apiToken,
                    instance: instance,
                    transport: transport,
                    directory: directory,
                    services: services,
                    running: running,
                    mail: mail
                )
            } catch {
                await services.triggerGracefulShutdown()
                await running.value
                throw error
            }
        } catch {
            try? FileManager.default.removeItem(at: directory)
            throw error
        }
    }

    /// Runs `body` with a fresh server and throws it away afterwards, whether `body` succeeded or not.
    public static func with<Result: Sendable>(
        containerIdentifier: String = "iCloud.com.example.tests",
        logger: Logger = Logger(label: "nimbus.in-process", factory: { _ in SwiftLogNoOpLogHandler() }),
        _ body: (InProcessNimbus) async throws -> Result
    ) async throws -> Result {
        let nimbus = try await start(containerIdentifier: containerIdentifier, logger: logger)
        do {
            let result = try await body(nimbus)
            await nimbus.stop()
            return result
        } catch {
            await nimbus.stop()
            throw error
        }
    }

    /// Adds a user to the container and signs them in.
    public func addUser(name: String, email: String? = nil, phone: String? = nil) async throws -> User {
        let added = try await instance.accounts.addUser(name: name, email: email, phone: phone, container: containerIdentifier)
        return User(userRecordName: added.user.userRecordName, webAuthToken: added.webAuthToken)
    }

    /// An SDK container signed in as `user` (or anonymous, with the API token only), keeping
    /// its sign-ins in `tokenStore` if one is given.
    public func container(as user: User?, retryPolicy: RetryPolicy = RetryPolicy(), tokenStore: (any TokenStore)? = nil) -> Container {
        Container(
            serverURL: "http://nimbus.in-process",
            identifier: containerIdentifier,
            authentication: .apiToken(apiToken, webAuthToken: user?.webAuthToken),
            transport: transport,
            retryPolicy: retryPolicy,
            tokenStore: tokenStore
        )
    }

    /// Saves records as `user`, creating the custom zones they name first (in the private
    /// database): a test's starting state, written the way the app writes, through the SDK.
    /// - Returns: the records as the server stored them, in the order given.
    /// - Throws: `.partialFailure` naming the records that could not be saved.
    @discardableResult
    public func seed(_ records: [Record], as user: User, in scope: DatabaseScope = .private) async throws -> [Record] {
        let database = container(as: user).database(scope)
        if scope == .private {
            var zones: [ZoneID] = []
            for record in records where !record.recordID.zoneID.isDefaultZone && !zones.contains(record.recordID.zoneID) {
                zones.append(record.recordID.zoneID)
            }
            if !zones.isEmpty { try await database.save(zones: zones) }
        }
        let result = try await database.modifyRecords(saving: records, savePolicy: .allKeys, atomically: false)
        if let failure = result.partialFailure { throw failure }
        return try records.map { record in
            guard let saved = result.saveResults[record.recordID] else {
                throw NimbusError(.internalError, "no result for record \(record.recordID)")
            }
            return try saved.get()
        }
    }

    deinit {
        // A test that forgot `stop()` leaves no dispatcher polling for the rest of the run.
        running.cancel()
    }

    /// Stops the services as a server does at shutdown (notification delivery, then the
    /// database), and deletes the database's files.
    public func stop() async {
        await services.triggerGracefulShutdown()
        await running.value
        try? FileManager.default.removeItem(at: directory)
    }
}
