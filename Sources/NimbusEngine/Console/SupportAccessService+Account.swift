//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import NimbusModel
public import NimbusStore

/// What of a user's account support reads besides their records: their shares with every
/// participant, their subscriptions and rules in each database, and their latest notifications.
public struct SupportAccountView: Sendable, Hashable {
    /// Shares they own or take part in.
    public var shares: [LocatedShare]
    /// Their subscriptions, by database.
    public var subscriptions: [(scope: DatabaseScope, subscription: Subscription)]
    /// Their latest notifications, newest first.
    public var notifications: [InboxEntry]
    /// The sequence number of their latest notification.
    public var lastSequence: Int64
    /// Their devices and channels (APNs tokens, webhooks, web courier tokens) with how far each
    /// has delivered and its failures since the last success.
    public var devices: [PushToken]
    /// Requests to join their shares, by share.
    public var accessRequests: [ShareRequest]

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.shares == rhs.shares && lhs.notifications == rhs.notifications && lhs.devices == rhs.devices
            && lhs.accessRequests == rhs.accessRequests && lhs.lastSequence == rhs.lastSequence
            && lhs.subscriptions.elementsEqual(rhs.subscriptions) { $0.scope == $1.scope && $0.subscription == $1.subscription }
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(shares)
        hasher.combine(notifications)
    }
}

extension SupportAccessService {
    /// How many of the latest notifications the account view shows.
    public static let notificationsShown = 20

    /// The user's shares, subscriptions and latest notifications (read under a grant of all
    /// their data, by ``overview(of:in:reader:)``).
    func accountView(of user: String, in environment: ContainerEnvironment) async throws(NimbusError) -> SupportAccountView {
        let caller = Self.caller(user, environment)
        let shares = try await database.inspectShares(of: user, container: environment.container, environment: environment.environment)
        var subscriptions: [(scope: DatabaseScope, subscription: Subscription)] = []
        for scope in DatabaseScope.allCases {
            subscriptions += try await database.subscriptions(access: DatabaseAccess(caller: caller, scope: scope)).map { (scope, $0) }
        }
        var accessRequests: [ShareRequest] = []
        for located in shares where located.tenant.owner == user && located.share.requestsEnabled {
            accessRequests += try await database.shareRequests(
                shareName: located.share.recordName,
                inZone: ZoneID(zoneName: located.zoneName, ownerRecordName: user),
                access: DatabaseAccess(caller: caller, scope: .private)
            )
        }
        let notifications: [InboxEntry]
        let devices: [PushToken]
        let last: Int64
        do {
            last = try await inbox.lastSequence(of: user, in: environment)
            devices = try await inbox.pushTokens(of: user, in: environment)
            notifications = try await inbox.inbox(
                of: user,
                in: environment,
                after: max(0, last - Int64(Self.notificationsShown)),
                limit: Self.notificationsShown
            )
            .reversed()
        } catch {
            throw .fromStore(error, logger: logger)
        }
        return SupportAccountView(
            shares: shares,
            subscriptions: subscriptions,
            notifications: notifications,
            lastSequence: last,
            devices: devices,
            accessRequests: accessRequests
        )
    }

    /// The rules' dry run for the user: would a change to `recordName` notify them through
    /// this subscription, and by which rule (`notifications/explain` as the user asks it). The
    /// read is recorded.
    /// - Throws: `.permissionFailure` without a live grant of all their data; what
    ///   `notifications/explain` throws (`NOT_FOUND` for a subscription or record they do not have).
    public func explain(
        of user: String,
        in environment: ContainerEnvironment,
        scope: DatabaseScope,
        subscriptionID: String,
        recordName: String,
        zoneID: ZoneID?,
        reader: OperatorAccount
    ) async throws(NimbusError) -> NotificationExplanation {
        let grant = try await requireWholeGrant(of: user, in: environment)
        let explanation = try await database.explainNotification(
            subscriptionID: subscriptionID,
            recordName: recordName,
            inZone: zoneID,
            reason: nil,
            writer: nil,
            access: DatabaseAccess(caller: Self.caller(user, environment), scope: scope)
        )
        try await recordRead(grant, reader: reader, what: "a dry run of subscription \(subscriptionID) on record \(recordName)")
        return explanation
    }

    private func requireWholeGrant(of user: String, in environment: ContainerEnvironment) async throws(NimbusError) -> SupportGrant {
        let grant = try await requireGrant(of: user, in: environment)
        if let only = grant.zoneName {
            throw NimbusError(
                .permissionFailure,
                "the user's grant covers the zone \(only) of their private database only, not their shares, subscriptions or notifications"
            )
        }
        return grant
    }
}
