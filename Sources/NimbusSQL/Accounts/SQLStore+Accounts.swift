//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import NimbusModel
public import NimbusStore

extension SQLStore: AccountStore {
    public func createContainer(_ container: ContainerEnvironment, apiTokenHash: String, developer: UserIdentity) async throws {
        let createdAt = clock.millisecondsSince1970
        try await database.write { connection in
            let inserted = try await connection.query(
                """
                INSERT INTO containers (container, environment, created_at) VALUES (?, ?, ?)
                ON CONFLICT (container, environment) DO NOTHING RETURNING container
                """,
                [.text(container.container), .text(container.environment.rawValue), .integer(createdAt)]
            )
            guard !inserted.isEmpty else { throw StoreError(.alreadyExists, detail: "container \(container.container)") }
            try await connection.execute(
                "INSERT INTO api_tokens (token_hash, container, environment, created_at) VALUES (?, ?, ?, ?)",
                [.text(apiTokenHash), .text(container.container), .text(container.environment.rawValue), .integer(createdAt)]
            )
            // The developer user is per container: the second environment reuses the first's.
            let developers = try await connection.query(
                "SELECT user_record_name FROM users WHERE container = ? AND is_developer = 1",
                [.text(container.container)]
            )
            if developers.isEmpty {
                try await connection.execute(
                    """
                    INSERT INTO users (container, user_record_name, name, email, phone, is_developer, created_at)
                    VALUES (?, ?, ?, ?, ?, 1, ?)
                    """,
                    [.text(container.container)] + Self.userBinds(developer) + [.integer(createdAt)]
                )
            }
        }
    }

    public func containerEnvironment(container: String, environment: Environment) async throws -> ContainerEnvironment? {
        let rows = try await database.readStatement(
            "SELECT container FROM containers WHERE container = ? AND environment = ?",
            [.text(container), .text(environment.rawValue)]
        )
        return rows.isEmpty ? nil : ContainerEnvironment(container: container, environment: environment)
    }

    public func developer(ofContainer container: String) async throws -> String? {
        try await database.readStatement(
            "SELECT user_record_name FROM users WHERE container = ? AND is_developer = 1",
            [.text(container)]
        ).first?.string(0)
    }

    public func apiToken(hash: String) async throws -> ContainerEnvironment? {
        let rows = try await database.readStatement("SELECT container, environment FROM api_tokens WHERE token_hash = ?", [.text(hash)])
        guard let row = rows.first, let environment = Environment(rawValue: row.string(1)) else { return nil }
        return ContainerEnvironment(container: row.string(0), environment: environment)
    }

    public func apiTokens(of environment: ContainerEnvironment) async throws -> [APITokenRecord] {
        try await database.readStatement(
            "SELECT token_hash, created_at FROM api_tokens WHERE container = ? AND environment = ? ORDER BY created_at, token_hash",
            [.text(environment.container), .text(environment.environment.rawValue)]
        ).map { APITokenRecord(hash: $0.string(0), createdAt: $0.int(1)) }
    }

    public func addAPIToken(hash: String, to environment: ContainerEnvironment) async throws {
        let createdAt = clock.millisecondsSince1970
        try await database.write { connection in
            try await connection.execute(
                "INSERT INTO api_tokens (token_hash, container, environment, created_at) VALUES (?, ?, ?, ?)",
                [.text(hash), .text(environment.container), .text(environment.environment.rawValue), .integer(createdAt)]
            )
        }
    }

    public func deleteAPIToken(hash: String, of environment: ContainerEnvironment) async throws -> Bool {
        try await database.write { connection in
            try await connection.query(
                "DELETE FROM api_tokens WHERE token_hash = ? AND container = ? AND environment = ? RETURNING token_hash",
                [.text(hash), .text(environment.container), .text(environment.environment.rawValue)]
            )
        }.isEmpty == false
    }

    public func addUser(_ user: UserIdentity, toContainer container: String) async throws {
        let createdAt = clock.millisecondsSince1970
        var user = user
        user.emailAddress = user.emailAddress.map(LookupInfo.normalizedEmail)
        user.phoneNumber = user.phoneNumber.map(LookupInfo.normalizedPhone)
        try await database.write { [user] connection in
            // An address finds one user: a second user with the same one is refused.
            for (column, value) in [("email", user.emailAddress), ("phone", user.phoneNumber)] {
                guard let value else { continue }
                let taken = try await connection.query(
                    "SELECT 1 FROM users WHERE container = ? AND \(column) = ?",
                    [.text(container), .text(value)]
                )
                if !taken.isEmpty { throw StoreError(.alreadyExists, detail: "a user with this \(column)") }
            }
            let inserted = try await connection.query(
                """
                INSERT INTO users (container, user_record_name, name, email, phone, is_developer, created_at)
                VALUES (?, ?, ?, ?, ?, 0, ?)
                ON CONFLICT (container, user_record_name) DO NOTHING RETURNING user_record_name
                """,
                [.text(container)] + Self.userBinds(user) + [.integer(createdAt)]
            )
            guard !inserted.isEmpty else { throw StoreError(.alreadyExists, detail: "user \(user.userRecordName)") }
        }
    }

    public func user(named userRecordName: String, inContainer container: String) async throws -> UserIdentity? {
        let rows = try await database.readStatement(
            "SELECT user_record_name, name, email, phone FROM users WHERE container = ? AND user_record_name = ?",
            [.text(container), .text(userRecordName)]
        )
        return rows.first.map {
            UserIdentity(userRecordName: $0.string(0), name: $0.string(1), emailAddress: $0[2].text, phoneNumber: $0[3].text)
        }
    }

    public func user(matching lookup: LookupInfo, inContainer container: String) async throws -> UserIdentity? {
        let (column, value): (String, String)
        switch lookup {
        case .emailAddress(let address): (column, value) = ("email", LookupInfo.normalizedEmail(address))
        case .phoneNumber(let number): (column, value) = ("phone", LookupInfo.normalizedPhone(number))
        case .userRecordName(let name): return try await user(named: name, inContainer: container)
        }
        let rows = try await database.read { connection in
            // The address the user was created with, or one they proved since.
            try await connection.query(
                """
                SELECT user_record_name, name, email, phone FROM users WHERE container = ? AND \(column) = ?
                UNION ALL
                SELECT u.user_record_name, u.name, u.email, u.phone FROM user_contacts c
                JOIN users u ON u.container = c.container AND u.user_record_name = c.user_record_name
                WHERE c.container = ? AND c.kind = ? AND c.value = ?
                """,
                [.text(container), .text(value), .text(container), .text(column), .text(value)]
            )
        }
        return rows.first.map {
            UserIdentity(userRecordName: $0.string(0), name: $0.string(1), emailAddress: $0[2].text, phoneNumber: $0[3].text)
        }
    }

    public func addWebAuthToken(_ token: WebAuthTokenRecord) async throws {
        try await database.write { connection in
            try await connection.execute(
                """
                INSERT INTO web_auth_tokens (
                    token_hash, container, user_record_name, issued_at, expires_at, lifetime, replaces, session_id, device)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
                [
                    .text(token.hash), .text(token.container), .text(token.userRecordName), .integer(token.issuedAt),
                    .integer(token.expiresAt), .integer(token.lifetime), token.replaces.map(SQLValue.text) ?? .null,
                    .text(token.sessionID), token.device.map(SQLValue.text) ?? .null,
                ]
            )
        }
    }

    public func webAuthToken(hash: String) async throws -> WebAuthTokenRecord? {
        let rows = try await database.readStatement(
            """
            SELECT \(Self.webAuthTokenColumns) FROM web_auth_tokens WHERE token_hash = ?
            """,
            [.text(hash)]
        )
        return rows.first.map(Self.webAuthToken(from:))
    }

    public func setWebAuthTokenExpiry(hash: String, expiresAt: Int64) async throws {
        try await database.write { connection in
            try await connection.execute(
                "UPDATE web_auth_tokens SET expires_at = ? WHERE token_hash = ?",
                [.integer(expiresAt), .text(hash)]
            )
        }
    }

    public func retireReplacedWebAuthToken(replacement: String, retiredAt: Int64) async throws {
        try await database.write { connection in
            try await connection.execute(
                """
                UPDATE web_auth_tokens SET expires_at = CASE WHEN expires_at > ? THEN ? ELSE expires_at END
                WHERE token_hash = (SELECT replaces FROM web_auth_tokens WHERE token_hash = ?)
                """,
                [.integer(retiredAt), .integer(retiredAt), .text(replacement)]
            )
            try await connection.execute("UPDATE web_auth_tokens SET replaces = NULL WHERE token_hash = ?", [.text(replacement)])
        }
    }

    public func addServerKey(_ key: ServerKeyRecord) async throws {
        let createdAt = clock.millisecondsSince1970
        try await database.write { connection in
            let inserted = try await connection.query(
                """
                INSERT INTO server_keys (key_id, container, public_key_pem, user_record_name, created_at)
                VALUES (?, ?, ?, ?, ?) ON CONFLICT (key_id) DO NOTHING RETURNING key_id
                """,
                [.text(key.keyID), .text(key.container), .text(key.publicKeyPEM), .text(key.userRecordName), .integer(createdAt)]
            )
            guard !inserted.isEmpty else { throw StoreError(.alreadyExists, detail: "key \(key.keyID)") }
        }
    }

    public func serverKey(id keyID: String) async throws -> ServerKeyRecord? {
        let rows = try await database.readStatement(
            "SELECT key_id, container, public_key_pem, user_record_name FROM server_keys WHERE key_id = ?",
            [.text(keyID)]
        )
        return rows.first.map {
            ServerKeyRecord(keyID: $0.string(0), container: $0.string(1), publicKeyPEM: $0.string(2), userRecordName: $0.string(3))
        }
    }

    public func serverKeys(ofContainer container: String) async throws -> [(key: ServerKeyRecord, createdAt: Int64)] {
        try await database.readStatement(
            "SELECT key_id, container, public_key_pem, user_record_name, created_at FROM server_keys WHERE container = ? ORDER BY created_at, key_id",
            [.text(container)]
        ).map { row in
            (ServerKeyRecord(keyID: row.string(0), container: row.string(1), publicKeyPEM: row.string(2), userRecordName: row.string(3)), row.int(4))
        }
    }

    public func deleteServerKey(id keyID: String, ofContainer container: String) async throws -> Bool {
        try await database.write { connection in
            try await !connection.query(
                "DELETE FROM server_keys WHERE key_id = ? AND container = ? RETURNING key_id",
                [.text(keyID), .text(container)]
            ).isEmpty
        }
    }

    static let webAuthTokenColumns =
        "token_hash, container, user_record_name, issued_at, expires_at, lifetime, replaces, session_id, device"

    /// A token from a row of ``webAuthTokenColumns``.
    static func webAuthToken(from row: SQLRow) -> WebAuthTokenRecord {
        WebAuthTokenRecord(
            hash: row.string(0),
            container: row.string(1),
            userRecordName: row.string(2),
            issuedAt: row.int(3),
            expiresAt: row.int(4),
            lifetime: row.int(5),
            replaces: row[6].text,
            sessionID: row[7].text,
            device: row[8].text
        )
    }

    static func userBinds(_ user: UserIdentity) -> [SQLValue] {
        [
            .text(user.userRecordName), .text(user.name), user.emailAddress.map(SQLValue.text) ?? .null,
            user.phoneNumber.map(SQLValue.text) ?? .null,
        ]
    }
}
