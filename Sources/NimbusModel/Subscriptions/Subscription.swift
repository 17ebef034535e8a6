//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

/// A standing request to be notified of changes: CloudKit's query, zone and database
/// subscriptions.
///
/// A subscription belongs to one user in one database of a container environment. Nimbus
/// accepts every kind in the shared database too (CloudKit refuses query subscriptions
/// there); each is evaluated only over records the subscriber may read.
public struct Subscription: Sendable, Hashable {
    /// The operations on a record a query subscription fires on.
    public enum FiresOn: String, Sendable, Hashable, CaseIterable, Comparable {
        /// A matching record was created.
        case create
        /// A matching record was changed.
        case update
        /// A matching record was deleted.
        case delete

        public static func < (lhs: FiresOn, rhs: FiresOn) -> Bool {
            allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
        }
    }

    /// What a subscription watches.
    public enum Kind: Sendable, Hashable {
        /// Records of a type matching the query's filters, in one zone or (`zoneID` `nil`) in
        /// every zone of the database.
        case query(Query, zoneID: ZoneID?, firesOn: Set<FiresOn>, firesOnce: Bool)
        /// Any change in one zone.
        case zone(ZoneID)
        /// Any change in any zone of the database, including zones created later.
        case database

        /// The wire name: `query`, `zone` or `database`.
        public var typeName: String {
            switch self {
            case .query: "query"
            case .zone: "zone"
            case .database: "database"
            }
        }
    }

    /// The subscription's identifier, unique per user and database; chosen by the client or
    /// assigned by the server.
    public var subscriptionID: String
    /// What it watches.
    public var kind: Kind
    /// How its notifications look.
    public var notificationInfo: NotificationInfo
    /// Per-recipient rules (Nimbus extension), tried in order for each change it fires on.
    public var rules: [NotificationRule]

    /// Creates a subscription.
    public init(subscriptionID: String, kind: Kind, notificationInfo: NotificationInfo = NotificationInfo(), rules: [NotificationRule] = []) {
        self.subscriptionID = subscriptionID
        self.kind = kind
        self.notificationInfo = notificationInfo
        self.rules = rules
    }

    /// The zone a zone or single-zone query subscription watches.
    public var zoneID: ZoneID? {
        switch kind {
        case .query(_, let zoneID, _, _): zoneID
        case .zone(let zoneID): zoneID
        case .database: nil
        }
    }
}
