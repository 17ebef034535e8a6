//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import NimbusModel
public import NimbusStore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension SQLStore: SignInStore {
    public func signInSettings(for environment: ContainerEnvironment) async throws -> SignInSettings? {
        let rows = try await database.readStatement(
            "SELECT settings FROM sign_in_settings WHERE container = ? AND environment = ?",
            [.text(environment.container), .text(environment.environment.rawValue)]
        )
        guard let row = rows.first else { return nil }
        var settings = try JSONDecoder().decode(SignInSettings.self, from: Data(row.string(0).utf8))
        for index in settings.providers.indices {
            guard let sealed = settings.providers[index].clientSecret else { continue }
            let opened = try cipher.open(
                Array(Data(base64Encoded: sealed) ?? Data()),
                identity: Self.secretIdentity(settings.providers[index], environment)
            )
            settings.providers[index].clientSecret = String(decoding: opened, as: UTF8.self)
        }
        if let sealed = settings.smtpURL {
            let opened = try cipher.open(
                Array(Data(base64Encoded: sealed) ?? Data()),
                identity: "sign-in-smtp|\(environment.container)|\(environment.environment.rawValue)"
            )
            settings.smtpURL = String(decoding: opened, as: UTF8.self)
        }
        return settings
    }

    public func saveSignInSettings(_ settings: SignInSettings, for environment: ContainerEnvironment) async throws {
        // Client secrets are kept sealed with the server's key, bound to their provider.
        var sealed = settings
        for index in sealed.providers.indices {
            guard let secret = sealed.providers[index].clientSecret else { continue }
            let box = try cipher.seal(Data(secret.utf8), identity: Self.secretIdentity(sealed.providers[index], environment))
            sealed.providers[index].clientSecret = Data(box).base64EncodedString()
        }
        if let url = sealed.smtpURL {
            let box = try cipher.seal(Data(url.utf8), identity: "sign-in-smtp|\(environment.container)|\(environment.environment.rawValue)")
            sealed.smtpURL = Data(box).base64EncodedString()
        }
        let json = String(decoding: try JSONEncoder().encode(sealed), as: UTF8.self)
        try await database.write { connection in
            try await connection.execute(
                """
                INSERT INTO sign_in_settings (container, environment, settings) VALUES (?, ?, ?)
                ON CONFLICT (container, environment) DO UPDATE SET settings = excluded.settings
                """,
                [.text(environment.container), .text(environment.environment.rawValue), .text(json)]
            )
        }
    }

    public func createUser(_ user: UserIdentity, isAnonymous: Bool, signingInWith identity: SignInIdentity) async throws {
        let createdAt = clock.millisecondsSince1970
        var user = user
        user.emailAddress = user.emailAddress.map(LookupInfo.normalizedEmail)
        try await database.write { [user] connection in
            if let email = user.emailAddress {
                let taken = try await connection.query(
                    """
                    SELECT 1 FROM users WHERE container = ? AND email = ?
                    UNION ALL SELECT 1 FROM user_contacts WHERE container = ? AND kind = 'email' AND value = ?
                    """,
                    [.text(identity.container), .text(email), .text(identity.container), .text(email)]
                )
                if !taken.isEmpty { throw StoreError(.alreadyExists, detail: "a user with this email") }
            }
            let inserted = try await connection.query(
                """
                INSERT INTO users (container, user_record_name, name, email, phone, is_developer, created_at, is_anonymous, is_discoverable)
                VALUES (?, ?, ?, ?, ?, 0, ?, ?, 0)
                ON CONFLICT (container, user_record_name) DO NOTHING RETURNING user_record_name
                """,
                [.text(identity.container)] + Self.userBinds(user) + [.integer(createdAt), .integer(isAnonymous ? 1 : 0)]
            )
            guard !inserted.isEmpty else { throw StoreError(.alreadyExists, detail: "user \(user.userRecordName)") }
            try await Self.insertIdentity(identity, connection: connection)
        }
    }

    public func account(of userRecordName: String, inContainer container: String) async throws -> UserAccount? {
        let rows = try await database.readStatement(
            "SELECT \(Self.accountColumns) FROM users WHERE container = ? AND user_record_name = ?",
            [.text(container), .text(userRecordName)]
        )
        return rows.first.map(Self.account(from:))
    }

    public func accounts(inContainer container: String, search: String?, limit: Int) async throws -> [UserAccount] {
        var sql = "SELECT \(Self.accountColumns) FROM users WHERE container = ? AND is_developer = 0"
        var binds: [SQLValue] = [.text(container)]
        if let search, !search.isEmpty {
            let pattern = "%" + Self.escapingLikeWildcards(search.lowercased()) + "%"
            sql += #" AND (lower(name) LIKE ? ESCAPE '\' OR lower(email) LIKE ? ESCAPE '\')"#
            binds += [.text(pattern), .text(pattern)]
        }
        sql += " ORDER BY created_at, user_record_name LIMIT ?"
        binds.append(.integer(Int64(limit)))
        let rows = try await database.read { [sql, binds] connection in try await connection.query(sql, binds) }
        return rows.map(Self.account(from:))
    }

    public func setDisabled(_ disabled: Bool, user userRecordName: String, inContainer container: String) async throws -> Bool {
        try await database.write { connection in
            let updated = try await connection.query(
                """
                UPDATE users SET is_disabled = ? WHERE container = ? AND user_record_name = ? AND is_developer = 0
                RETURNING user_record_name
                """,
                [.integer(disabled ? 1 : 0), .text(container), .text(userRecordName)]
            )
            if disabled && !updated.isEmpty {
                try await connection.execute(
                    "DELETE FROM web_auth_tokens WHERE container = ? AND user_record_name = ?",
                    [.text(container), .text(userRecordName)]
                )
            }
            return !updated.isEmpty
        }
    }

    public func rename(user userRecordName: String, to name: String, inContainer container: String) async throws -> Bool {
        try await database.write { connection in
            try await !connection.query(
                "UPDATE users SET name = ? WHERE container = ? AND user_record_name = ? RETURNING user_record_name",
                [.text(name), .text(container), .text(userRecordName)]
            ).isEmpty
        }
    }

    public func deleteUser(_ userRecordName: String, inContainer container: String) async throws -> Bool {
        try await database.write { connection in
            // A developer acts for the container's server keys: never removed this way.
            let found = try await connection.query(
                "SELECT is_developer FROM users WHERE container = ? AND user_record_name = ?",
                [.text(container), .text(userRecordName)]
            )
            guard let row = found.first, row.int(0) == 0 else { return false }
            for statement in Self.userDeletion(of: userRecordName, inContainer: container) {
                try await connection.execute(statement.sql, statement.binds)
            }
            return true
        }
    }

    /// The statements that delete what a user owns and what names them, the account last.
    ///
    /// Each reaches its rows through an index: the deletion runs as one write, which on SQLite
    /// holds the only writer, so a scan of a table that grows with the container (its records,
    /// say) would stall every write of the deployment for as long as it took. The tables keyed by
    /// environment before the user are asked for every environment (`environment IN (…)`), which
    /// both stores read as one index search per environment.
    static func userDeletion(of userRecordName: String, inContainer container: String) -> [SQLStatement] {
        let environments = Environment.allCases.map { SQLValue.text($0.rawValue) }
        let inEnvironments = "environment IN (\(SQLStatement.placeholders(environments.count)))"
        let user: [SQLValue] = [.text(userRecordName)]
        let containerEnvironments = [.text(container)] + environments
        var statements: [SQLStatement] = []
        // What the user owns: every environment's private database. Their custom zones, and the
        // shares in them, are gone already (`DatabaseService.removeSharedData`).
        for table in ["records", "record_references", "record_assets", "storage_usage", "databases"] {
            statements.append(
                .init(sql: "DELETE FROM \(table) WHERE container = ? AND \(inEnvironments) AND owner = ?", binds: containerEnvironments + user)
            )
        }
        statements.append(
            .init(
                sql: "DELETE FROM zones WHERE container = ? AND \(inEnvironments) AND owner = ? AND zone_name = ?",
                binds: containerEnvironments + user + [.text(ZoneID.defaultZoneName)]
            )
        )
        statements.append(
            .init(
                sql: """
                    DELETE FROM support_reads WHERE grant_id IN
                    (SELECT grant_id FROM support_grants WHERE container = ? AND \(inEnvironments) AND user_record_name = ?)
                    """,
                binds: containerEnvironments + user
            )
        )
        // What names the user.
        for table in ["notification_sequences", "notification_inbox", "push_tokens", "share_requests", "support_grants"] {
            statements.append(
                .init(
                    sql: "DELETE FROM \(table) WHERE container = ? AND \(inEnvironments) AND user_record_name = ?",
                    binds: containerEnvironments + user
                )
            )
        }
        let scopes = DatabaseScope.allCases.map { SQLValue.text($0.rawValue) }
        statements.append(
            .init(
                sql: """
                    DELETE FROM subscriptions WHERE container = ? AND \(inEnvironments)
                    AND database_scope IN (\(SQLStatement.placeholders(scopes.count))) AND user_record_name = ?
                    """,
                binds: containerEnvironments + scopes + user
            )
        )
        for table in ["user_contacts", "contact_verifications", "sign_in_identities", "sign_in_codes", "web_auth_tokens", "users"] {
            statements.append(.init(sql: "DELETE FROM \(table) WHERE container = ? AND user_record_name = ?", binds: [.text(container)] + user))
        }
        return statements
    }

    public func setDiscoverable(_ discoverable: Bool, user userRecordName: String, inContainer container: String) async throws -> Bool {
        try await database.write { connection in
            try await !connection.query(
                "UPDATE users SET is_discoverable = ? WHERE container = ? AND user_record_name = ? RETURNING user_record_name",
                [.integer(discoverable ? 1 : 0), .text(container), .text(userRecordName)]
            ).isEmpty
        }
    }

    public func identity(provider: String, subject: String, inContainer container: String) async throws -> SignInIdentity? {
        let rows = try await database.readStatement(
            "SELECT \(Self.identityColumns) FROM sign_in_identities WHERE container = ? AND provider = ? AND subject = ?",
            [.text(container), .text(provider), .text(subject)]
        )
        return rows.first.map(Self.identity(from:))
    }

    public func identities(of userRecordName: String, inContainer container: String) async throws -> [SignInIdentity] {
        try await database.readStatement(
            """
            SELECT \(Self.identityColumns) FROM sign_in_identities WHERE container = ? AND user_record_name = ?
            ORDER BY created_at, provider
            """,
            [.text(container), .text(userRecordName)]
        ).map(Self.identity(from:))
    }

    public func addIdentity(_ identity: SignInIdentity) async throws {
        try await database.write { connection in
            try await Self.insertIdentity(identity, connection: connection)
            if identity.provider != SignInIdentity.anonymousProvider {
                try await connection.execute(
                    "UPDATE users SET is_anonymous = 0 WHERE container = ? AND user_record_name = ?",
                    [.text(identity.container), .text(identity.userRecordName)]
                )
            }
        }
    }

    public func deleteIdentity(provider: String, subject: String, inContainer container: String) async throws -> Bool {
        try await database.write { connection in
            try await !connection.query(
                "DELETE FROM sign_in_identities WHERE container = ? AND provider = ? AND subject = ? RETURNING subject",
                [.text(container), .text(provider), .text(subject)]
            ).isEmpty
        }
    }

    public func setSecretHash(_ secretHash: String, provider: String, subject: String, inContainer container: String) async throws -> Bool {
        try await database.write { connection in
            try await !connection.query(
                """
                UPDATE sign_in_identities SET secret_hash = ? WHERE container = ? AND provider = ? AND subject = ?
                RETURNING subject
                """,
                [.text(secretHash), .text(container), .text(provider), .text(subject)]
            ).isEmpty
        }
    }

    public func saveSignInCode(_ code: SignInCode) async throws {
        try await database.write { connection in
            try await connection.execute(
                """
                INSERT INTO sign_in_codes (
                    container, email, purpose, code_hash, expires_at, failed_attempts, name, password_hash, user_record_name)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (container, email) DO UPDATE SET
                    purpose = excluded.purpose, code_hash = excluded.code_hash, expires_at = excluded.expires_at,
                    failed_attempts = excluded.failed_attempts, name = excluded.name,
                    password_hash = excluded.password_hash, user_record_name = excluded.user_record_name
                """,
                [
                    .text(code.container), .text(code.email), .text(code.purpose.rawValue), .text(code.codeHash),
                    .integer(code.expiresAt), .integer(Int64(code.failedAttempts)), code.name.map(SQLValue.text) ?? .null,
                    code.passwordHash.map(SQLValue.text) ?? .null, code.userRecordName.map(SQLValue.text) ?? .null,
                ]
            )
        }
    }

    public func signInCode(email: String, inContainer container: String) async throws -> SignInCode? {
        let rows = try await database.readStatement(
            """
            SELECT purpose, code_hash, expires_at, failed_attempts, name, password_hash, user_record_name
            FROM sign_in_codes WHERE container = ? AND email = ?
            """,
            [.text(container), .text(email)]
        )
        guard let row = rows.first, let purpose = SignInCode.Purpose(rawValue: row.string(0)) else { return nil }
        return SignInCode(
            container: container,
            email: email,
            purpose: purpose,
            codeHash: row.string(1),
            expiresAt: row.int(2),
            failedAttempts: Int(row.int(3)),
            name: row[4].text,
            passwordHash: row[5].text,
            userRecordName: row[6].text
        )
    }

    public func deleteSignInCode(email: String, inContainer container: String) async throws {
        try await database.write { connection in
            try await connection.execute("DELETE FROM sign_in_codes WHERE container = ? AND email = ?", [.text(container), .text(email)])
        }
    }

    public func claimNonce(_ nonceHash: String, expiresAt: Int64) async throws -> Bool {
        let now = clock.millisecondsSince1970
        return try await database.write { connection in
            try await connection.execute("DELETE FROM used_nonces WHERE expires_at <= ?", [.integer(now)])
            return try await !connection.query(
                "INSERT INTO used_nonces (nonce_hash, expires_at) VALUES (?, ?) ON CONFLICT (nonce_hash) DO NOTHING RETURNING nonce_hash",
                [.text(nonceHash), .integer(expiresAt)]
            ).isEmpty
        }
    }

    public func sessions(of userRecordName: String, inContainer container: String) async throws -> [WebAuthTokenRecord] {
        let now = clock.millisecondsSince1970
        let tokens = try await database.readStatement(
            """
            SELECT \(Self.webAuthTokenColumns) FROM web_auth_tokens
            WHERE container = ? AND user_record_name = ? AND expires_at > ? ORDER BY issued_at, token_hash
            """,
            [.text(container), .text(userRecordName), .integer(now)]
        ).map(Self.webAuthToken(from:))
        // Tokens come oldest first: a session is listed where its first token is, as its newest.
        var order: [String] = []
        var newest: [String: WebAuthTokenRecord] = [:]
        for token in tokens {
            if newest[token.sessionID] == nil { order.append(token.sessionID) }
            newest[token.sessionID] = token
        }
        return order.compactMap { newest[$0] }
    }

    public func endSessions(of userRecordName: String, inContainer container: String, sessionID: String?) async throws -> Int {
        let now = clock.millisecondsSince1970
        var condition = "container = ? AND user_record_name = ?"
        var binds: [SQLValue] = [.text(container), .text(userRecordName)]
        if let sessionID {
            condition += " AND session_id = ?"
            binds.append(.text(sessionID))
        }
        return try await database.write { [condition, binds] connection in
            let live = try await connection.query(
                "SELECT DISTINCT session_id FROM web_auth_tokens WHERE \(condition) AND expires_at > ?",
                binds + [.integer(now)]
            )
            try await connection.execute("DELETE FROM web_auth_tokens WHERE \(condition)", binds)
            return live.count
        }
    }

    /// What a provider's sealed client secret is bound to: it opens only as that provider's.
    private static func secretIdentity(_ provider: SignInProvider, _ environment: ContainerEnvironment) -> String {
        "sign-in|\(environment.container)|\(environment.environment.rawValue)|\(provider.name)|\(provider.issuer)"
    }

    // MARK: - Rows

    private static let accountColumns = "user_record_name, name, email, phone, is_anonymous, is_disabled, created_at, is_discoverable"

    private static func account(from row: SQLRow) -> UserAccount {
        UserAccount(
            identity: UserIdentity(userRecordName: row.string(0), name: row.string(1), emailAddress: row[2].text, phoneNumber: row[3].text),
            isAnonymous: row.int(4) != 0,
            isDisabled: row.int(5) != 0,
            createdAt: row.int(6),
            isDiscoverable: row.int(7) != 0
        )
    }

    private static let identityColumns = "container, provider, subject, user_record_name, secret_hash, email, created_at"

    private static func identity(from row: SQLRow) -> SignInIdentity {
        SignInIdentity(
            container: row.string(0),
            provider: row.string(1),
            subject: row.string(2),
            userRecordName: row.string(3),
            secretHash: row[4].text,
            email: row[5].text,
            createdAt: row.int(6)
        )
    }

    private static func insertIdentity(_ identity: SignInIdentity, connection: any SQLConnection) async throws {
        let inserted = try await connection.query(
            """
            INSERT INTO sign_in_identities (container, provider, subject, user_record_name, secret_hash, email, created_at)
            VALUES (?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (container, provider, subject) DO NOTHING RETURNING subject
            """,
            [
                .text(identity.container), .text(identity.provider), .text(identity.subject), .text(identity.userRecordName),
                identity.secretHash.map(SQLValue.text) ?? .null, identity.email.map(SQLValue.text) ?? .null,
                .integer(identity.createdAt),
            ]
        )
        guard !inserted.isEmpty else { throw StoreError(.alreadyExists, detail: "identity \(identity.provider)") }
    }

    private static func escapingLikeWildcards(_ text: String) -> String {
        var escaped = ""
        for character in text {
            if character == "%" || character == "_" || character == "\\" { escaped.append("\\") }
            escaped.append(character)
        }
        return escaped
    }
}
