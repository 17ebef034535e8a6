//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusModel
public import NimbusStore

extension SQLStore: PushTokenStore {
    /// The columns ``pushToken(from:)`` reads, in its order.
    private static let tokenColumns = """
        token_key, kind, container, environment, user_record_name, apns_environment, delivered_through, apns_token,
        device_id, failures, last_used_at
        """

    public func savePushToken(_ token: PushToken) async throws {
        let createdAt = clock.millisecondsSince1970
        try await database.write { connection in
            // A device registering again starts afresh: position, failures and back-off.
            try await connection.execute(
                """
                INSERT INTO push_tokens (token_key, kind, container, environment, user_record_name, apns_environment,
                    delivered_through, created_at, apns_token, device_id, last_used_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (token_key) DO UPDATE SET kind = excluded.kind, container = excluded.container,
                    environment = excluded.environment, user_record_name = excluded.user_record_name,
                    apns_environment = excluded.apns_environment, delivered_through = excluded.delivered_through,
                    apns_token = excluded.apns_token, device_id = excluded.device_id, failures = 0, next_attempt_at = 0,
                    last_used_at = excluded.last_used_at
                """,
                [
                    .text(token.key), .text(token.kind.rawValue), .text(token.container.container),
                    .text(token.container.environment.rawValue), .text(token.userRecordName), .text(token.apnsEnvironment),
                    .integer(token.deliveredThrough), .integer(createdAt), token.apnsToken.map(SQLValue.text) ?? .null,
                    token.deviceID.map(SQLValue.text) ?? .null, .integer(createdAt),
                ]
            )
            let owner: [SQLValue] = [
                .text(token.container.container), .text(token.container.environment.rawValue), .text(token.userRecordName),
                .text(token.kind.rawValue),
            ]
            try await connection.execute(
                """
                DELETE FROM push_tokens
                WHERE container = ? AND environment = ? AND user_record_name = ? AND kind = ? AND token_key NOT IN (
                    SELECT token_key FROM push_tokens
                    WHERE container = ? AND environment = ? AND user_record_name = ? AND kind = ?
                    ORDER BY last_used_at DESC, token_key LIMIT ?)
                """,
                owner + owner + [.integer(Int64(PushToken.maximumPerUser))]
            )
        }
    }

    public func touchPushToken(_ key: String) async throws {
        let usedAt = clock.millisecondsSince1970
        try await database.write { connection in
            try await connection.execute("UPDATE push_tokens SET last_used_at = ? WHERE token_key = ?", [.integer(usedAt), .text(key)])
        }
    }

    public func pruneCourierTokens(unusedSince cutoff: Int64) async throws -> Int {
        try await database.write { connection in
            try await connection.query(
                "DELETE FROM push_tokens WHERE kind = 'webcourier' AND last_used_at < ? RETURNING token_key",
                [.integer(cutoff)]
            ).count
        }
    }

    public func pushToken(_ key: String) async throws -> PushToken? {
        let rows = try await database.readStatement("SELECT \(Self.tokenColumns) FROM push_tokens WHERE token_key = ?", [.text(key)])
        return rows.first.flatMap(Self.pushToken(from:))
    }

    public func pushTokens(of userRecordName: String, in container: ContainerEnvironment) async throws -> [PushToken] {
        try await database.readStatement(
            "SELECT \(Self.tokenColumns) FROM push_tokens WHERE container = ? AND environment = ? AND user_record_name = ? ORDER BY last_used_at DESC",
            [.text(container.container), .text(container.environment.rawValue), .text(userRecordName)]
        ).compactMap(Self.pushToken(from:))
    }

    public func advancePushToken(_ key: String, from expected: Int64, through sequence: Int64) async throws -> Bool {
        try await database.write { connection in
            try await !connection.query(
                "UPDATE push_tokens SET delivered_through = ? WHERE token_key = ? AND delivered_through = ? RETURNING token_key",
                [.integer(sequence), .text(key), .integer(expected)]
            ).isEmpty
        }
    }

    public func claimDuePushTokens(_ kind: PushToken.Kind, now: Int64, leaseUntil: Int64, limit: Int) async throws -> [PushToken] {
        // A look first, outside any transaction: the pusher asks every second, and most of the
        // time nothing is due, which must not cost a serialized write on every instance.
        let due = try await database.readStatement(Self.dueTokensSQL, [.text(kind.rawValue), .integer(now), .integer(now), .integer(1)])
        guard !due.isEmpty else { return [] }
        // One claimer at a time across instances: the claim reads, then marks, what it takes.
        return try await database.write(serializing: "push.\(kind.rawValue).claim") { connection in
            let rows = try await connection.query(
                Self.dueTokensSQL,
                [.text(kind.rawValue), .integer(now), .integer(now), .integer(Int64(limit))]
            )
            let tokens = rows.compactMap(Self.pushToken(from:))
            guard !tokens.isEmpty else { return [] }
            // The claim is checked again on each row as it is now, and the rows come back as
            // they are: on PostgreSQL each statement sees the newest rows, and a token released or
            // registered again since the read (writes that do not take the claim's turn) must
            // not be pushed from what the read saw.
            let claimed = try await connection.query(
                """
                UPDATE push_tokens SET claimed_until = ?
                WHERE token_key IN (\(SQLStatement.placeholders(tokens.count)))
                    AND next_attempt_at <= ? AND claimed_until <= ?
                RETURNING \(Self.tokenColumns)
                """,
                [.integer(leaseUntil)] + tokens.map { .text($0.key) } + [.integer(now), .integer(now)]
            )
            let current = Dictionary(claimed.compactMap(Self.pushToken(from:)).map { ($0.key, $0) }) { first, _ in first }
            return tokens.compactMap { current[$0.key] }
        }
    }

    /// Tokens of a kind with inbox entries past their position, not backing off and not claimed
    /// by another instance; binds: kind, now, now, limit.
    private static let dueTokensSQL = """
        SELECT \(tokenColumns) FROM push_tokens t
        WHERE t.kind = ? AND t.next_attempt_at <= ? AND t.claimed_until <= ?
            AND EXISTS (SELECT 1 FROM notification_inbox i
                WHERE i.container = t.container AND i.environment = t.environment
                    AND i.user_record_name = t.user_record_name AND i.sequence > t.delivered_through)
        ORDER BY t.next_attempt_at, t.token_key LIMIT ?
        """

    public func releasePushToken(_ key: String, deliveredThrough: Int64, failures: Int, nextAttemptAt: Int64) async throws {
        try await database.write { connection in
            // The position only moves forward: a device that registered again meanwhile keeps its own.
            try await connection.execute(
                """
                UPDATE push_tokens SET delivered_through = CASE WHEN delivered_through > ? THEN delivered_through ELSE ? END,
                    failures = ?, next_attempt_at = ?, claimed_until = 0
                WHERE token_key = ?
                """,
                [.integer(deliveredThrough), .integer(deliveredThrough), .integer(Int64(failures)), .integer(nextAttemptAt), .text(key)]
            )
        }
    }

    public func deletePushToken(_ key: String) async throws {
        try await database.write { connection in
            try await connection.execute("DELETE FROM push_tokens WHERE token_key = ?", [.text(key)])
        }
    }

    private static func pushToken(from row: SQLRow) -> PushToken? {
        guard let kind = PushToken.Kind(rawValue: row.string(1)), let environment = Environment(rawValue: row.string(3)) else { return nil }
        return PushToken(
            key: row.string(0),
            kind: kind,
            container: ContainerEnvironment(container: row.string(2), environment: environment),
            userRecordName: row.string(4),
            apnsEnvironment: row.string(5),
            deliveredThrough: row.int(6),
            apnsToken: row[7].text,
            deviceID: row[8].text,
            failures: Int(row.int(9)),
            lastUsedAt: row.int(10)
        )
    }
}
