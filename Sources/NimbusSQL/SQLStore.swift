//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Crypto
public import Logging
import NimbusModel
import NimbusStore

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
    /// Milliseconds since 1970-01-01 UTC; injected so tests control time.
    let now: @Sendable () -> Int64
    /// Each container's per-user storage quota, as last read (see `userQuota(of:)`).
    let quotas = StorageQuotaCache()
    /// Builds the indexes queries ask for (see `FieldIndex`).
    let fieldIndexes: FieldIndexBuilder

    init(database: any SQLDatabase, cipher: FieldCipher, now: @escaping @Sendable () -> Int64, logger: Logger) {
        self.database = database
        self.cipher = cipher
        self.now = now
        self.fieldIndexes = FieldIndexBuilder(database: database, logger: logger)
    }

    /// Opens (creating if needed) an SQLite store at `path` and migrates it to the latest schema.
    /// - Parameters:
    ///   - path: The database file.
    ///   - cipher: Seals encrypted fields; its key must stay the same for the life of the data.
    ///   - now: The clock, in milliseconds since 1970-01-01 UTC.
    ///   - logger: Where the store logs what it does in the background (index builds).
    public static func openSQLite(
        path: String,
        cipher: FieldCipher,
        now: @escaping @Sendable () -> Int64 = SQLStore.systemTime,
        logger: Logger = Logger(label: "nimbus.store")
    ) async throws -> SQLStore {
        SQLStore(database: try await SQLiteDatabase.open(path: path), cipher: cipher, now: now, logger: logger)
    }

    /// Connects to a PostgreSQL database and migrates it to the latest schema (migrations from
    /// several processes at once take turns).
    /// - Parameters:
    ///   - location: The database, and the pool and timeout settings.
    ///   - cipher: Seals encrypted fields; its key must stay the same for the life of the data,
    ///     and be the same in every process that shares the database.
    ///   - now: The clock, in milliseconds since 1970-01-01 UTC.
    ///   - logger: Where the connection pool, and the store's background work, log.
    public static func openPostgres(
        _ location: PostgresLocation,
        cipher: FieldCipher,
        now: @escaping @Sendable () -> Int64 = SQLStore.systemTime,
        logger: Logger
    ) async throws -> SQLStore {
        SQLStore(database: try await PostgreSQLDatabase.open(location, logger: logger), cipher: cipher, now: now, logger: logger)
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

    /// Closes the database; the store must not be used afterwards.
    public func close() async {
        await fieldIndexes.stop()
        await database.close()
    }

    /// The system clock in milliseconds since 1970-01-01 UTC.
    @Sendable public static func systemTime() -> Int64 {
        Int64((Date().timeIntervalSince1970 * 1000).rounded())
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

    /// A JSON array of strings, the bind of ``SQLDialect`` membership tests.
    static func jsonArray(_ values: [String]) -> SQLValue {
        var writer = JSONWriter(capacity: values.count * 24 + 2)
        writer.beginArray()
        for value in values { writer.string(value) }
        writer.endArray()
        return .text(String(decoding: writer.bytes, as: UTF8.self))
    }
}
