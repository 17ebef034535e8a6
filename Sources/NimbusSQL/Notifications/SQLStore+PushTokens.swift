//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import NimbusModel
public import NimbusStore

extension SQLStore: PushTokenStore {
    public func savePushToken(_ token: PushToken) async throws {
        let createdAt = now()
        try await database.write { connection in
            try await connection.execute(
                """
                INSERT INTO push_tokens (token_key, kind, container, environment, user_record_name, apns_environment,
                    delivered_through, created_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (token_key) DO UPDATE SET kind = excluded.kind, container = excluded.container,
                    environment = excluded.environment, user_record_name = excluded.user_record_name,
                    apns_environment = excluded.apns_environment, delivered_through = excluded.delivered_through
                """,
                [
                    .text(token.key), .text(token.kind.rawValue), .text(token.container.container),
                    .text(token.container.environment.rawValue), .text(token.userRecordName), .text(token.apnsEnvironment),
                    .integer(token.deliveredThrough), .integer(createdAt),
                ]
            )
        }
    }

    public func pushToken(_ key: String) async throws -> PushToken? {
        let rows = try await database.readStatement(
            """
            SELECT kind, container, environment, user_record_name, apns_environment, delivered_through
            FROM push_tokens WHERE token_key = ?
            """,
            [.text(key)]
        )
        guard let row = rows.first, let kind = PushToken.Kind(rawValue: row.string(0)), let environment = Environment(rawValue: row.string(2))
        else { return nil }
        return PushToken(
            key: key,
            kind: kind,
            container: ContainerEnvironment(container: row.string(1), environment: environment),
            userRecordName: row.string(3),
            apnsEnvironment: row.string(4),
            deliveredThrough: row.int(5)
        )
    }

    public func advancePushToken(_ key: String, from expected: Int64, through sequence: Int64) async throws -> Bool {
        try await database.write { connection in
            try await !connection.query(
                "UPDATE push_tokens SET delivered_through = ? WHERE token_key = ? AND delivered_through = ? RETURNING token_key",
                [.integer(sequence), .text(key), .integer(expected)]
            ).isEmpty
        }
    }
}
