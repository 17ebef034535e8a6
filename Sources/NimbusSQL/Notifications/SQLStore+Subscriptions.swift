//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import NimbusModel
public import NimbusStore

extension SQLStore: SubscriptionStore {
    public func subscriptions(of subscriber: Subscriber) async throws -> [Subscription] {
        let rows = try await database.readStatement(
            """
            SELECT body FROM subscriptions
            WHERE container = ? AND environment = ? AND database_scope = ? AND user_record_name = ?
            ORDER BY subscription_id
            """,
            Self.binds(subscriber)
        )
        return try rows.map { try Self.subscription(fromBody: $0.string(0)) }
    }

    public func subscriptions(withIDs ids: [String], of subscriber: Subscriber) async throws -> [String: Subscription] {
        guard !ids.isEmpty else { return [:] }
        let rows = try await database.readStatement(
            """
            SELECT body FROM subscriptions
            WHERE container = ? AND environment = ? AND database_scope = ? AND user_record_name = ?
              AND \(database.dialect.isAmong("subscription_id"))
            """,
            Self.binds(subscriber) + [.textList(ids)]
        )
        var found: [String: Subscription] = [:]
        for row in rows {
            let subscription = try Self.subscription(fromBody: row.string(0))
            found[subscription.subscriptionID] = subscription
        }
        return found
    }

    public func modifySubscriptions(_ changes: [SubscriptionChange], of subscriber: Subscriber) async throws -> [Bool] {
        let createdAt = clock.millisecondsSince1970
        return try await database.write { connection in
            var found: [Bool] = []
            for change in changes {
                switch change {
                case .save(let subscription):
                    var body = JSONWriter()
                    subscription.write(to: &body)
                    var recordType: SQLValue = .null
                    if case .query(let query, _, _, _) = subscription.kind { recordType = .text(query.recordType) }
                    try await connection.execute(
                        """
                        INSERT INTO subscriptions (container, environment, database_scope, user_record_name, subscription_id,
                            kind, record_type, body, created_at)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                        ON CONFLICT (container, environment, database_scope, user_record_name, subscription_id) DO UPDATE SET
                            kind = excluded.kind, record_type = excluded.record_type, body = excluded.body
                        """,
                        Self.binds(subscriber) + [
                            .text(subscription.subscriptionID), .text(subscription.kind.typeName), recordType,
                            .text(String(decoding: body.bytes, as: UTF8.self)), .integer(createdAt),
                        ]
                    )
                    found.append(true)
                case .delete(let id):
                    let rows = try await connection.query(
                        """
                        DELETE FROM subscriptions
                        WHERE container = ? AND environment = ? AND database_scope = ? AND user_record_name = ? AND subscription_id = ?
                        RETURNING subscription_id
                        """,
                        Self.binds(subscriber) + [.text(id)]
                    )
                    found.append(!rows.isEmpty)
                }
            }
            return found
        }
    }

    static func binds(_ subscriber: Subscriber) -> [SQLValue] {
        [
            .text(subscriber.container), .text(subscriber.environment.rawValue), .text(subscriber.scope.rawValue),
            .text(subscriber.userRecordName),
        ]
    }

    static func subscription(fromBody body: String) throws -> Subscription {
        try Subscription.read(try JSONParser.parse(body), at: "subscription")
    }
}
