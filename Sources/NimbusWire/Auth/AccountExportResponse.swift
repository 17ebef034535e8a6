//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import NimbusModel

/// The answer of `/auth/1/.../export`: everything of the caller's in one environment, as JSON a
/// person can keep and another service can read.
///
/// `{"exportedAt", "environment", "account": {...}, "sessions": [...], "zones": [{"zoneID",
/// "records": [record...]}], "sharedZones": [zoneID...], "subscriptions": [subscription...]}`.
/// Records, zones and subscriptions have the shapes the database endpoints answer with.
public struct AccountExportResponse: WireResponse {
    /// When the export was made (ms since 1970).
    public var exportedAt: Int64
    /// The environment exported.
    public var environment: Environment
    /// The account, as `account` answers it.
    public var account: AuthResponse.Account
    /// The signed-in devices.
    public var sessions: [AuthResponse.Session]
    /// The private database's zones and their records.
    public var zones: [(zoneID: ZoneID, records: [Record])]
    /// The zones others share with the user.
    public var sharedZones: [ZoneID]
    /// The user's subscriptions.
    public var subscriptions: [Subscription]

    /// Creates an export.
    public init(
        exportedAt: Int64,
        environment: Environment,
        account: AuthResponse.Account,
        sessions: [AuthResponse.Session],
        zones: [(zoneID: ZoneID, records: [Record])],
        sharedZones: [ZoneID],
        subscriptions: [Subscription]
    ) {
        self.exportedAt = exportedAt
        self.environment = environment
        self.account = account
        self.sessions = sessions
        self.zones = zones
        self.sharedZones = sharedZones
        self.subscriptions = subscriptions
    }

    package func write(to writer: inout JSONWriter, options: WireOptions) {
        writer.beginObject()
        writer.field("exportedAt", exportedAt)
        writer.field("environment", environment.rawValue)
        writer.key("account")
        AuthResponse.write(account, to: &writer)
        writer.key("sessions")
        AuthResponse.write(sessions, to: &writer)
        writer.key("zones")
        writer.beginArray()
        for (zoneID, records) in zones {
            writer.beginObject()
            writer.field("zoneID", zoneID)
            writer.key("records")
            writer.beginArray()
            for record in records { WireRecord(record, desiredKeys: nil).write(to: &writer, options: options) }
            writer.endArray()
            writer.endObject()
        }
        writer.endArray()
        writer.key("sharedZones")
        writer.beginArray()
        for zoneID in sharedZones {
            writer.beginObject()
            writer.field("zoneName", zoneID.zoneName)
            writer.field("ownerRecordName", zoneID.ownerRecordName)
            writer.endObject()
        }
        writer.endArray()
        writer.key("subscriptions")
        writer.beginArray()
        for subscription in subscriptions { subscription.write(to: &writer) }
        writer.endArray()
        writer.endObject()
    }
}
