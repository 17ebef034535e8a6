//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Crypto
public import Logging
import NimbusModel
public import NimbusStore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The record, account and schema store over SQL: one implementation for every SQL engine.
///
/// The statements are written once; ``SQLDialect`` holds what differs between engines. Only the
/// executables pick an engine (``openSQLite(path:cipher:now:)`` or
/// ``openPostgres(_:cipher:now:logger:)``), everything else sees the store
/// protocols.
public final class SQLStore: Sendable {
    let database: any SQLDatabase
    let cipher: FieldCipher
    /// The clock the store stamps rows by; injected so tests control time.
    let clock: any NimbusClock
    /// Each container's per-user storage quota, as last read (see `userQuota(of:)`).
    let quotas: StorageQuotaCache
    /// Builds the indexes queries ask for (see `FieldIndex`).
    let fieldIndexes: FieldIndexBuilder
    /// The commit hook: fired once a write that recorded a change has committed.
    public let changeCommitted = ChangeSignal()
    private let lifetime = StoreLifetime()
    /// Whether the database held no container when the store opened it: a new deployment.
    public let heldNoDataWhenOpened: Bool

    init(database: any SQLDatabase, heldNoData: Bool, cipher: FieldCipher, clock: any NimbusClock, logger: Logger) {
        self.database = database
        self.heldNoDataWhenOpened = heldNoData
        self.cipher = cipher
        self.clock = clock
        self.quotas = StorageQuotaCache(clock: clock)
        self.fieldIndexes = FieldIndexBuilder(database: database, clock: clock, logger: logger)
    }

    /// Opens (creating if needed) an SQLite store at `path` and migrates it to the latest schema.
    /// - Parameters:
    ///   - path: The database file.
    ///   - cipher: Seals encrypted fields; its key must stay the same for the life of the data.
    ///   - clock: The clock it reads the time from; tests pass one they move by hand.
    ///   - logger: Where the store logs what it does in the background (index builds).
    public static func openSQLite(
        path: String,
        cipher: FieldCipher,
        clock: any NimbusClock = SystemClock(),
        logger: Logger = Logger(label: "nimbus.store")
    ) async throws -> SQLStore {
        let database = try await SQLiteDatabase.open(path: path)
        let heldNoData = try await database.readStatement("SELECT 1 FROM containers LIMIT 1", []).isEmpty
        return SQLStore(database: database, heldNoData: heldNoData, cipher: cipher, clock: clock, logger: logger)
    }

    /// Connects to a PostgreSQL database and migrates it to the latest schema (migrations from
    /// several processes at once take turns). The store serves once it runs (``run()``).
    /// - Parameters:
    ///   - location: The database, and the pool and timeout settings.
    ///   - cipher: Seals encrypted fields; its key must stay the same for the life of the data,
    ///     and be the same in every process that shares the database.
    ///   - clock: The clock it reads the time from; tests pass one they move by hand.
    ///   - logger: Where the connection pool, and the store's background work, log.
    public static func openPostgres(
        _ location: PostgresLocation,
        cipher: FieldCipher,
        clock: any NimbusClock = SystemClock(),
        logger: Logger
    ) async throws -> SQLStore {
        let (database, heldNoData) = try await PostgreSQLDatabase.open(location, logger: logger)
        return SQLStore(database: database, heldNoData: heldNoData, cipher: cipher, clock: clock, logger: logger)
    }

    /// Whether the store holds no container yet: a new deployment.
    public func isEmpty() async throws -> Bool {
        try await database.read { connection in
            try await connection.query("SELECT 1 FROM containers LIMIT 1", []).isEmpty
        }
    }

    /// The schema version the database is at.
    public func schemaVersion() async throws -> Int64 {
        try await database.read { connection in
            try await connection.query("SELECT MAX(version) FROM schema_migrations", []).first?.int(0) ?? 0
        }
    }

    /// Runs the store's long-lived work: PostgreSQL's connection pool, and the builder of the
    /// indexes queries ask for. Returns when the calling task is cancelled or the store closes.
    ///
    /// A store serves only while it runs (a PostgreSQL store's queries wait for its pool): a
    /// server runs it as a service of its group; a tool runs it around its work. Calling it
    /// again while it runs starts nothing more, and returns as the first call does.
    public func run() async {
        guard lifetime.start() else {
            await lifetime.waitUntilClosed()
            return
        }
        await withDiscardingTaskGroup { group in
            group.addTask { await self.database.run() }
            group.addTask { await self.fieldIndexes.run() }
            await lifetime.waitUntilClosed()
            group.cancelAll()
        }
        lifetime.ended()
    }

    /// Closes the database once its work (``run()``) has ended; the store must not be used
    /// afterwards. Closing again does nothing.
    public func close() async {
        guard lifetime.close() else { return }
        await lifetime.waitUntilRunEnded()
        await database.close()
    }

    /// Binds the tenant key columns `container, environment, owner`.
    static func binds(_ tenant: Tenant) -> [SQLValue] {
        [.text(tenant.container), .text(tenant.environment.rawValue), .text(tenant.owner)]
    }

    /// Binds the zone key columns `container, environment, owner, zone_name`.
    static func binds(_ tenant: Tenant, zone: String) -> [SQLValue] {
        binds(tenant) + [.text(zone)]
    }

    /// What a tenant's writes take turns on: each bumps the tenant's database counter, so two at
    /// once would only collide.
    static func writeKey(_ tenant: Tenant) -> String {
        "\(tenant.container)\u{1F}\(tenant.environment.rawValue)\u{1F}\(tenant.owner)"
    }
}
