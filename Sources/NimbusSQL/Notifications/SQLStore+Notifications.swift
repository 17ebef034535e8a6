//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusModel
public import NimbusStore

extension SQLStore: NotificationStore {
    public func dispatch<Result: Sendable>(
        _ body: @escaping @Sendable (any NotificationTransaction) async throws -> Result
    ) async throws -> Result {
        let dialect = database.dialect
        let cipher = cipher
        let createdAt = clock.millisecondsSince1970
        // One dispatcher at a time across instances: their sequence numbers and outbox claims
        // would only collide. Its turn is taken by the statement that takes the events: with
        // one instance, or several that rarely dispatch at once, a lock around the transaction
        // would cost two round trips a pass for nothing.
        return try await database.write(takingTurnOf: "notifications.dispatch") { connection, turn in
            try await body(SQLNotificationTransaction(connection: connection, dialect: dialect, cipher: cipher, now: createdAt, turn: turn))
        }
    }

    public func hasPendingEvents() async throws -> Bool {
        try await !database.readStatement("SELECT 1 FROM change_events LIMIT 1", []).isEmpty
    }

    public func inbox(of userRecordName: String, in container: ContainerEnvironment, after sequence: Int64, limit: Int) async throws
        -> [InboxEntry]
    {
        let rows = try await database.readStatement(
            """
            SELECT sequence, notification_id, origin_device, created_at, payload, collapse_id FROM notification_inbox
            WHERE container = ? AND environment = ? AND user_record_name = ? AND sequence > ?
            ORDER BY sequence LIMIT ?
            """,
            [
                .text(container.container), .text(container.environment.rawValue), .text(userRecordName), .integer(sequence),
                .integer(Int64(limit)),
            ]
        )
        return rows.map { row in
            InboxEntry(
                container: container,
                userRecordName: userRecordName,
                sequence: row.int(0),
                notificationID: row.string(1),
                originDeviceID: row[2].text,
                createdAt: row.int(3),
                payload: Array(row.string(4).utf8),
                collapseID: row[5].text
            )
        }
    }

    public func lastSequence(of userRecordName: String, in container: ContainerEnvironment) async throws -> Int64 {
        let rows = try await database.readStatement(
            """
            SELECT last_sequence FROM notification_sequences
            WHERE container = ? AND environment = ? AND user_record_name = ?
            """,
            [.text(container.container), .text(container.environment.rawValue), .text(userRecordName)]
        )
        return rows.first?.int(0) ?? 0
    }

    public func pruneInboxes(before cutoff: Int64) async throws -> Int {
        try await database.write { connection in
            try await connection.query(
                "DELETE FROM notification_inbox WHERE created_at < ? RETURNING sequence",
                [.integer(cutoff)]
            ).count
        }
    }

    public var announcesAcrossInstances: Bool { database.dialect.announcesAcrossInstances }

    public func followAnnouncements(_ receive: @escaping @Sendable (InboxAnnouncement) -> Void) async throws {
        try await database.listen(channel: InboxAnnouncementCoding.channel) { payload in
            if let announcement = InboxAnnouncementCoding.decode(payload) { receive(announcement) }
        }
    }
}
