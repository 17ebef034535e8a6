//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import AsyncHTTPClient
public import Logging
import NimbusAPNs
public import NimbusEngine
import NimbusModel
import NimbusSQL
public import NimbusStore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// An opened Nimbus: the store on its data directory and the services over it.
///
/// `nimbus serve` and the admin subcommands both start here, so they see the same data and the
/// same keys. Only this module picks the concrete store.
public struct NimbusInstance: Sendable {
    /// The configuration the instance was opened with.
    public let configuration: ServerConfiguration
    /// The service that answers zone, record and query requests.
    public let database: DatabaseService
    /// The service that manages containers, users and credentials.
    public let accounts: AccountService
    /// People signing themselves up and in.
    public let signIn: SignInService
    /// The console's operators, their sessions and the audit log.
    public let operators: OperatorService
    /// Asset uploads, downloads and their collection.
    public let assets: AssetService
    /// Sends sign-in mail in the background.
    let mailOutbox: MailOutbox
    /// Turns committed writes into notifications and hands them to connections.
    public let dispatcher: NotificationDispatcher
    /// Pushes notifications to APNs device tokens; `nil` without an APNs configuration.
    public let apns: APNsDelivery?
    /// Sends server-to-server keys' notifications to their webhooks.
    public let webhooks: WebhookDelivery
    private let apnsClient: APNsClient?
    let store: SQLStore
    /// The clock the instance was opened with.
    let clock: any NimbusClock
    let tokenKey: [UInt8]
    /// Where the instance's services log.
    let logger: Logger
    /// Whether the store held no data before this open: a new data directory or an empty database.
    public let isNew: Bool

    /// Opens (creating if needed) the data directory of a configuration, and the database it names.
    /// - Parameters:
    ///   - configuration: Where the data is and how to serve it.
    ///   - logger: Where the services log.
    ///   - clock: The clock the instance reads and sleeps on; tests pass one they move by hand.
    ///   - mailer: Sends sign-in mail; `nil`: an ``SMTPMailer`` for the configuration's
    ///     ``ServerConfiguration/smtp``, or without one, the log (development).
    public static func open(
        _ configuration: ServerConfiguration,
        logger: Logger,
        clock: any NimbusClock = SystemClock(),
        mailer: (any Mailer)? = nil
    ) async throws -> NimbusInstance {
        let mailer = try mailer ?? makeMailer(configuration, clock: clock, logger: logger)
        let files = FileManager.default
        do {
            try files.createDirectory(atPath: configuration.dataDirectory, withIntermediateDirectories: true)
        } catch {
            throw ServerError("cannot create the data directory \(configuration.dataDirectory): \(error)")
        }
        let keys = try ServerKeys.load(
            dataDirectory: configuration.dataDirectory,
            configuredFieldKey: configuration.fieldEncryptionKey,
            configuredTokenKey: configuration.tokenKey
        )
        guard let cipher = FieldCipher(keyBytes: keys.field) else { throw ServerError("field encryption key must be 32 bytes") }
        let store: SQLStore
        let isNew: Bool
        if let url = configuration.databaseURL {
            let location: PostgresLocation
            do {
                location = try PostgresLocation(url: url)
            } catch {
                throw ServerError("the database URL is not usable: \(error)")
            }
            do {
                store = try await SQLStore.openPostgres(location, cipher: cipher, clock: clock, logger: logger)
            } catch {
                throw ServerError("cannot open the database \(location): \(String(reflecting: error))")
            }
            isNew = store.heldNoDataWhenOpened
        } else {
            isNew = !files.fileExists(atPath: configuration.databasePath)
            store = try await SQLStore.openSQLite(path: configuration.databasePath, cipher: cipher, clock: clock, logger: logger)
        }
        var accountConfiguration = AccountService.Configuration()
        accountConfiguration.signatureDateWindow = Int64(configuration.signatureDateWindowSeconds) * 1000
        let accounts = AccountService(store: store, configuration: accountConfiguration, clock: clock, logger: logger)
        let mailOutbox = MailOutbox(mailer: ContainerMailer(fallback: mailer, settings: store, clock: clock, logger: logger), logger: logger)
        // One hasher for users and operators: its concurrency bounds the memory hashes take.
        let hasher = PasswordHasher(parameters: configuration.passwordHashing)
        let signIn = SignInService(
            accounts: accounts,
            store: store,
            hasher: hasher,
            verifier: IDTokenVerifier(fetcher: HTTPOpenIDDocumentFetcher(), clock: clock),
            outbox: mailOutbox,
            clock: clock,
            logger: logger
        )
        let operators = OperatorService(
            store: store,
            hasher: hasher,
            clock: clock,
            logger: logger
        )
        let names = TimeOrderedUUID(clock: clock)
        let database = DatabaseService(
            records: store,
            shares: store,
            subscriptions: store,
            users: store,
            schemaStore: store,
            clock: clock,
            makeRecordName: { names.next() },
            cursorKey: keys.token,
            logger: logger
        )
        let blobs: any AssetBlobStore =
            if let s3 = configuration.assetStore {
                try S3AssetBlobStore(configuration: s3, incomingDirectory: configuration.dataDirectory + "/assets/incoming")
            } else {
                try FileAssetBlobStore(directory: configuration.dataDirectory + "/assets")
            }
        let assets = AssetService(
            blobs: blobs,
            store: store,
            tokenKey: keys.token,
            encryptionKey: keys.field,
            clock: clock,
            configuration: configuration.assets,
            logger: logger
        )
        let dispatcher = NotificationDispatcher(
            store: store,
            signal: database.changeSignal,
            hub: NotificationHub(),
            makeID: { UUID().uuidString.lowercased() },
            batchDelay: configuration.notificationDelay,
            clock: clock,
            logger: logger
        )
        var apnsClient: APNsClient?
        var apns: APNsDelivery?
        if let apnsConfiguration = configuration.apns {
            do {
                let client = try await APNsClient(configuration: apnsConfiguration, logger: logger)
                apnsClient = client
                apns = APNsDelivery(
                    tokens: store,
                    notifications: store,
                    sender: client,
                    wake: dispatcher.hub.written,
                    clock: clock,
                    inboxRetention: configuration.inboxRetention,
                    logger: logger
                )
            } catch {
                await store.close()
                throw ServerError("the APNs configuration is not usable: \(error)")
            }
        }
        let webhooks = WebhookDelivery(
            tokens: store,
            notifications: store,
            sender: WebhookClient(client: OutboundHTTPClient.shared, clock: clock),
            serverKey: keys.token,
            wake: dispatcher.hub.writtenForWebhooks,
            clock: clock,
            logger: logger
        )
        return NimbusInstance(
            configuration: configuration,
            database: database,
            accounts: accounts,
            signIn: signIn,
            operators: operators,
            assets: assets,
            mailOutbox: mailOutbox,
            dispatcher: dispatcher,
            apns: apns,
            webhooks: webhooks,
            apnsClient: apnsClient,
            store: store,
            clock: clock,
            tokenKey: keys.token,
            logger: logger,
            isNew: isNew
        )
    }

    /// How much the store holds and how many writes wait for dispatch, for `/metrics`.
    public func storeStatistics() async throws -> StoreStatistics {
        try await store.statistics()
    }

    /// Removes inbox entries older than the configured retention, and web courier tokens
    /// nobody polled for as long; returns how many entries and tokens went.
    public func pruneInboxes() async throws -> Int {
        let cutoff = clock.millisecondsSince1970 - Int64(configuration.inboxRetention.components.seconds) * 1000
        return try await store.pruneInboxes(before: cutoff) + store.pruneCourierTokens(unusedSince: cutoff)
    }

    /// Removes web auth tokens, sign-in codes and codes to verify an address that expired over an
    /// hour ago; returns how many went. The hour is for clocks: an instance whose clock runs behind still takes a token for
    /// live a little past its end, and must find it. Operator sessions are not among them: an
    /// operator's expired sessions are deleted when they next sign in.
    public func pruneExpiredCredentials() async throws -> Int {
        try await store.pruneExpiredCredentials(expiredBefore: clock.millisecondsSince1970 - 3_600_000)
    }

    /// Checks that the asset store answers (an S3 bucket with these credentials), so a start
    /// with a wrong one fails at once, with the reason.
    public func checkAssetStore() async throws {
        if let s3 = assets.blobs as? S3AssetBlobStore { try await s3.checkBucket() }
    }

    /// Schema export, import and deployment to production.
    public var schema: SchemaAdministration { SchemaAdministration(store: store) }

    /// Users' grants of support access, and the console's reads under them (it keeps no state
    /// of its own).
    public var support: SupportAccessService {
        SupportAccessService(store: store, database: database, inbox: store, clock: clock, logger: logger)
    }

    /// Where push tokens are kept.
    var pushTokens: any PushTokenStore { store }

    /// The version of the store's schema (after the migrations `open` ran).
    public func schemaVersion() async throws -> Int64 {
        try await store.schemaVersion()
    }

    /// Closes the connections to APNs and the store; their services (``services``) must have
    /// stopped. A service group running them closes the instance as it shuts down.
    public func close() async {
        try? await apnsClient?.shutdown()
        await store.close()
    }
}

/// An instance holds the server's keys: printed, it shows only its configuration, redacted.
extension NimbusInstance: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var description: String { "NimbusInstance(\(configuration))" }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: ["configuration": configuration], displayStyle: .struct) }
}
