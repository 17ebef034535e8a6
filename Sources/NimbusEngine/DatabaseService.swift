//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import Logging
import NimbusModel
public import NimbusStore

/// The rules of a container's databases: zones, records and queries, with permissions.
///
/// Knows the model and the store protocols, never HTTP. Every method takes the caller's
/// ``DatabaseAccess`` and answers as CloudKit would: another user's private data is
/// indistinguishable from data that does not exist.
public final class DatabaseService: Sendable {
    /// The largest number of operations, lookups or results in one request.
    public static let maximumOperations = 200
    /// The largest encoded size of a record's fields, excluding assets (1 MB).
    public static let maximumRecordSize = 1_000_000

    let records: any RecordStore
    let shares: any ShareStore
    let subscriptions: any SubscriptionStore
    /// Fires after every committed write that may notify someone (the store's commit hook):
    /// the dispatcher waits on it.
    public var changeSignal: ChangeSignal { records.changeCommitted }
    let users: any AccountStore
    let schema: SchemaRegistry
    /// The clock it reads the time from.
    let clock: any NimbusClock
    /// Makes names for records created without one.
    let makeRecordName: @Sendable () -> String
    let sealer: TokenSealer
    let logger: Logger

    /// Creates the service.
    /// - Parameters:
    ///   - records: Where zones and records live.
    ///   - shares: Where shares are read outside zone transactions.
    ///   - users: Where participants of shares are looked up.
    ///   - schemaStore: Where record types and their fields are kept.
    ///   - clock: The clock it reads the time from; tests pass one they move by hand.
    ///   - makeRecordName: Names records created without one (UUIDs in production).
    ///   - cursorKey: A secret that authenticates continuation markers and sync tokens.
    ///   - logger: Where rule decisions worth knowing are logged.
    public init(
        records: any RecordStore,
        shares: any ShareStore,
        subscriptions: any SubscriptionStore,
        users: any AccountStore,
        schemaStore: any SchemaStore,
        clock: any NimbusClock,
        makeRecordName: @escaping @Sendable () -> String,
        cursorKey: [UInt8],
        logger: Logger
    ) {
        self.records = records
        self.shares = shares
        self.subscriptions = subscriptions
        self.users = users
        self.schema = SchemaRegistry(store: schemaStore)
        self.clock = clock
        self.makeRecordName = makeRecordName
        self.sealer = TokenSealer(key: cursorKey)
        self.logger = logger
    }

    // MARK: - Tenancy and permissions

    /// The tenant whose data a request addresses, after checking that the caller may address it.
    ///
    /// - Throws: `.authenticationRequired` for anonymous callers of a private database,
    ///   `.permissionFailure` for server-to-server keys outside the public database.
    func tenant(for access: DatabaseAccess) throws(NimbusError) -> Tenant {
        let caller = access.caller
        switch access.scope {
        case .public:
            return .publicDatabase(container: caller.container, environment: caller.environment)
        case .private, .shared:
            if caller.kind == .serverKey {
                throw .permissionFailure("server-to-server keys can only access the public database")
            }
            guard let user = caller.userRecordName else {
                throw NimbusError(.authenticationRequired, "request needs authorization")
            }
            return Tenant(container: caller.container, environment: caller.environment, owner: user)
        }
    }

    /// Checks that a zone ID names a zone of the tenant: owner placeholders mean the caller.
    ///
    /// Another owner's zone is reported as not found, never as forbidden.
    func zoneName(of zoneID: ZoneID?, in tenant: Tenant, access: DatabaseAccess) throws(NimbusError) -> String {
        guard let zoneID else { return ZoneID.defaultZoneName }
        let owner = zoneID.ownerRecordName
        let isCaller =
            owner.isEmpty || ZoneID.isCallerPlaceholder(owner)
            || owner == tenant.owner || owner == access.caller.userRecordName
        guard isCaller else { throw NimbusError.zoneNotFound }
        return zoneID.zoneName
    }

    /// The user a write acts as; anonymous callers cannot write.
    func writer(_ access: DatabaseAccess) throws(NimbusError) -> String {
        guard let user = access.caller.userRecordName else {
            throw NimbusError(.authenticationRequired, "request needs authorization")
        }
        return user
    }

    /// The zone ID reported for a tenant's zone: public zones have CloudKit's placeholder owner.
    func reportedZoneID(_ zoneName: String, of tenant: Tenant) -> ZoneID {
        ZoneID(zoneName: zoneName, ownerRecordName: tenant.isPublic ? "_defaultOwner" : tenant.owner)
    }

    /// Runs a store call, turning store failures into the client-facing error.
    func store<Result>(_ body: () async throws -> Result) async throws(NimbusError) -> Result {
        do {
            return try await body()
        } catch {
            throw .fromStore(error, logger: logger)
        }
    }
}
