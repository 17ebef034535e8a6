//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import Logging
public import NimbusModel
public import NimbusStore

/// Support access with the user's consent: a user grants it from their app (time-boxed, to
/// all their data or to one zone of their private database, revocable); operators read under
/// a live grant only, and every read is recorded where the user sees it and in the console's
/// audit log. Without a grant the console shows counts, never contents.
///
/// Operators read as the user reads: through the same database service and the same access
/// rules, never around them.
public final class SupportAccessService: Sendable {
    /// The longest grant, in hours: a week.
    public static let longestGrantHours = 168
    /// A grant's length when the user does not say, in hours.
    public static let defaultGrantHours = 24

    let store: any SupportAccessStore
    let database: DatabaseService
    /// Where the user's notifications and devices are, for the account view.
    let inbox: any NotificationStore & PushTokenStore
    let clock: any NimbusClock
    let logger: Logger

    /// Creates the service.
    public init(
        store: any SupportAccessStore,
        database: DatabaseService,
        inbox: any NotificationStore & PushTokenStore,
        clock: any NimbusClock,
        logger: Logger
    ) {
        self.store = store
        self.database = database
        self.inbox = inbox
        self.clock = clock
        self.logger = logger
    }

    // MARK: - The user's side

    /// Grants support access to the caller's data for `hours`, to one zone of their private
    /// database when `zoneName` is given.
    /// - Throws: `.authenticationRequired` for a caller who is not a signed-in user;
    ///   `.badRequest` for hours outside 1...``longestGrantHours``; `.zoneNotFound` for a zone
    ///   they do not have.
    public func grant(hours: Int?, zoneName: String?, caller: Caller) async throws(NimbusError) -> SupportGrant {
        let user = try Self.user(of: caller)
        let hours = hours ?? Self.defaultGrantHours
        guard (1...Self.longestGrantHours).contains(hours) else {
            throw .badRequest("hours must be from 1 to \(Self.longestGrantHours) (a week)")
        }
        if let zoneName {
            let found = try await database.lookupZones(
                [ZoneID(zoneName: zoneName, ownerRecordName: user)],
                access: DatabaseAccess(caller: caller, scope: .private)
            )
            if case .failure(let error)? = found.first { throw error }
        }
        let now = clock.millisecondsSince1970
        let grant = SupportGrant(
            id: Hex.string(Credentials.randomBytes(16)),
            environment: ContainerEnvironment(container: caller.container, environment: caller.environment),
            user: user,
            zoneName: zoneName,
            createdAt: now,
            expiresAt: now + Int64(hours) * 3_600_000
        )
        do {
            try await store.addSupportGrant(grant)
        } catch {
            throw .fromStore(error, logger: logger)
        }
        return grant
    }

    /// The caller's grants, newest first, each with the reads made under it.
    public func grants(caller: Caller) async throws(NimbusError) -> [SupportGrantReport] {
        let user = try Self.user(of: caller)
        do {
            let grants = try await store.supportGrants(
                of: user,
                in: ContainerEnvironment(container: caller.container, environment: caller.environment),
                limit: 50
            )
            let reads = try await store.supportReads(grantIDs: grants.map(\.id), limit: 1000)
            let now = clock.millisecondsSince1970
            return grants.map { grant in
                SupportGrantReport(grant: grant, isLive: grant.isLive(at: now), reads: reads.filter { $0.grantID == grant.id })
            }
        } catch {
            throw .fromStore(error, logger: logger)
        }
    }

    /// Ends one of the caller's live grants: operators' reads stop at once.
    /// - Throws: `.unknownItem` when the caller has no such live grant.
    public func revoke(id: String, caller: Caller) async throws(NimbusError) {
        let user = try Self.user(of: caller)
        let revoked: Bool
        do {
            revoked = try await store.revokeSupportGrant(
                id: id,
                of: user,
                in: ContainerEnvironment(container: caller.container, environment: caller.environment),
                now: clock.millisecondsSince1970
            )
        } catch {
            throw .fromStore(error, logger: logger)
        }
        guard revoked else { throw NimbusError(.unknownItem, "no live support grant \(id.prefix(64)) of yours") }
    }

    // MARK: - The operators' side

    /// The user's live grant, if they gave one: a grant of all their data before one of a
    /// zone, then the one that ends last.
    public func liveGrant(of user: String, in environment: ContainerEnvironment) async throws(NimbusError) -> SupportGrant? {
        let now = clock.millisecondsSince1970
        do {
            return try await store.supportGrants(of: user, in: environment, limit: 50).filter { $0.isLive(at: now) }.max {
                ($0.zoneName == nil ? 1 : 0, $0.expiresAt) < ($1.zoneName == nil ? 1 : 0, $1.expiresAt)
            }
        } catch {
            throw .fromStore(error, logger: logger)
        }
    }

    /// What an operator may read under the user's live grant, at a glance: their private
    /// zones (or the granted one) and, for a grant of all their data, the zones shared with
    /// them and their account (shares, subscriptions, latest notifications). One read, recorded.
    /// - Throws: `.permissionFailure` without a live grant.
    public func overview(of user: String, in environment: ContainerEnvironment, reader: OperatorAccount) async throws(NimbusError)
        -> SupportOverview
    {
        let grant = try await requireGrant(of: user, in: environment)
        let caller = Self.caller(user, environment)
        var zones = try await database.zones(access: DatabaseAccess(caller: caller, scope: .private)).map {
            SupportedZone(scope: .private, zoneID: $0.zoneID)
        }
        var account: SupportAccountView?
        if let only = grant.zoneName {
            zones = zones.filter { $0.zoneID.zoneName == only }
        } else {
            zones += try await database.zones(access: DatabaseAccess(caller: caller, scope: .shared)).map {
                SupportedZone(scope: .shared, zoneID: $0.zoneID)
            }
            account = try await accountView(of: user, in: environment)
        }
        try await recordRead(
            grant,
            reader: reader,
            what: account == nil ? "the list of zones" : "the list of zones, shares, subscriptions and latest notifications"
        )
        return SupportOverview(grant: grant, zones: zones, account: account)
    }

    /// A page of the records of one zone the user's live grant covers, in change order. The
    /// read is recorded.
    /// - Throws: `.permissionFailure` without a live grant, or for a zone outside it;
    ///   `.zoneNotFound` for a zone the user cannot read.
    public func records(
        of user: String,
        in environment: ContainerEnvironment,
        zone: SupportedZone,
        continuation: String?,
        reader: OperatorAccount
    ) async throws(NimbusError) -> (grant: SupportGrant, page: RecordChangesPage) {
        let grant = try await requireGrant(of: user, in: environment)
        if let only = grant.zoneName, zone.scope != .private || zone.zoneID.zoneName != only {
            throw NimbusError(.permissionFailure, "the user's grant covers the zone \(only) of their private database only")
        }
        guard zone.scope != .public else { throw .badRequest("support access reads the private and shared databases") }
        let page = try await database.recordChanges(
            inZone: zone.zoneID,
            syncToken: continuation,
            resultsLimit: 50,
            access: DatabaseAccess(caller: Self.caller(user, environment), scope: zone.scope)
        )
        try await recordRead(grant, reader: reader, what: "the records of \(zone.description)")
        return (grant, page)
    }

    // MARK: - Private

    func requireGrant(of user: String, in environment: ContainerEnvironment) async throws(NimbusError) -> SupportGrant {
        guard let grant = try await liveGrant(of: user, in: environment) else {
            throw NimbusError(
                .permissionFailure,
                "this user has not granted support access: the console shows their counts only. They can grant it from their app."
            )
        }
        return grant
    }

    func recordRead(_ grant: SupportGrant, reader: OperatorAccount, what: String) async throws(NimbusError) {
        let now = clock.millisecondsSince1970
        do {
            try await store.recordSupportRead(
                SupportRead(grantID: grant.id, at: now, operatorEmail: reader.email, what: what),
                audit: ConsoleAuditEntry(
                    at: now,
                    operatorEmail: reader.email,
                    action: "support.read",
                    container: grant.environment.container,
                    target: what,
                    subjectUser: grant.user
                )
            )
        } catch {
            throw .fromStore(error, logger: logger)
        }
    }

    private static func user(of caller: Caller) throws(NimbusError) -> String {
        guard caller.kind == .user, let user = caller.userRecordName else {
            throw NimbusError(.authenticationRequired, "support access is granted by a signed-in user, for their own data")
        }
        return user
    }

    static func caller(_ user: String, _ environment: ContainerEnvironment) -> Caller {
        Caller(container: environment.container, environment: environment.environment, kind: .user, userRecordName: user)
    }
}

/// What the console's support page shows first.
public struct SupportOverview: Sendable, Hashable {
    /// The live grant it was read under.
    public var grant: SupportGrant
    /// The zones the grant covers.
    public var zones: [SupportedZone]
    /// Their shares, subscriptions and notifications, for a grant of all their data.
    public var account: SupportAccountView?
}

/// A grant and the reads made under it: what the user lists.
public struct SupportGrantReport: Sendable, Hashable {
    /// The grant.
    public var grant: SupportGrant
    /// Whether it lets operators read now.
    public var isLive: Bool
    /// The reads under it, newest first.
    public var reads: [SupportRead]
}

/// A zone support access may read: in the user's private database or shared with them.
public struct SupportedZone: Sendable, Hashable, CustomStringConvertible {
    /// The database: private or shared.
    public var scope: DatabaseScope
    /// The zone, with its owner.
    public var zoneID: ZoneID

    /// Creates a zone reference.
    public init(scope: DatabaseScope, zoneID: ZoneID) {
        self.scope = scope
        self.zoneID = zoneID
    }

    public var description: String {
        scope == .shared ? "zone \(zoneID.zoneName) (shared with them)" : "zone \(zoneID.zoneName) (private database)"
    }
}
