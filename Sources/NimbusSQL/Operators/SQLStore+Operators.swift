//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusModel
public import NimbusStore

extension SQLStore: OperatorStore {
    public func addOperator(_ account: OperatorAccount) async throws {
        try await database.write { connection in
            let inserted = try await connection.query(
                """
                INSERT INTO operators (operator_id, email, role, password_hash, is_disabled, created_at)
                VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (email) DO NOTHING RETURNING operator_id
                """,
                Self.operatorBinds(account)
            )
            guard !inserted.isEmpty else { throw StoreError(.alreadyExists, detail: "operator \(account.email)") }
        }
    }

    public func operatorAccount(email: String) async throws -> OperatorAccount? {
        try await database.readStatement("\(Self.operatorColumns) WHERE email = ?", [.text(email)]).first.map(Self.operatorAccount)
    }

    public func operatorAccount(id: String) async throws -> OperatorAccount? {
        try await database.readStatement("\(Self.operatorColumns) WHERE operator_id = ?", [.text(id)]).first.map(Self.operatorAccount)
    }

    public func operatorAccounts() async throws -> [OperatorAccount] {
        try await database.readStatement("\(Self.operatorColumns) ORDER BY created_at, email", []).map(Self.operatorAccount)
    }

    public func setOperatorPassword(_ passwordHash: String, operator id: String) async throws {
        try await database.write { connection in
            try await connection.execute("UPDATE operators SET password_hash = ? WHERE operator_id = ?", [.text(passwordHash), .text(id)])
        }
    }

    public func addOperatorSetupLink(hash: String, operatorID: String?, expiresAt: Int64) async throws {
        try await database.write { connection in
            try await connection.execute(
                "INSERT INTO operator_setup_links (link_hash, operator_id, expires_at) VALUES (?, ?, ?)",
                [.text(hash), operatorID.map { .text($0) } ?? .null, .integer(expiresAt)]
            )
        }
    }

    public func takeOperatorSetupLink(hash: String, now: Int64) async throws -> String?? {
        try await database.write { connection in
            let rows = try await connection.query(
                "DELETE FROM operator_setup_links WHERE link_hash = ? RETURNING operator_id, expires_at",
                [.text(hash)]
            )
            guard let row = rows.first, row.int(1) > now else { return nil }
            return .some(row[0].text)
        }
    }

    public func operatorSetupLink(hash: String, now: Int64) async throws -> String?? {
        let rows = try await database.readStatement(
            "SELECT operator_id FROM operator_setup_links WHERE link_hash = ? AND expires_at > ?",
            [.text(hash), .integer(now)]
        )
        guard let row = rows.first else { return nil }
        return .some(row[0].text)
    }

    public func addOperatorSession(hash: String, operatorID: String, expiresAt: Int64, now: Int64) async throws {
        try await database.write { connection in
            // Expired sessions go as new ones come: the table holds few besides live ones.
            try await connection.execute(
                "DELETE FROM operator_sessions WHERE operator_id = ? AND expires_at <= ?",
                [.text(operatorID), .integer(now)]
            )
            try await connection.execute(
                "INSERT INTO operator_sessions (session_hash, operator_id, expires_at) VALUES (?, ?, ?)",
                [.text(hash), .text(operatorID), .integer(expiresAt)]
            )
        }
    }

    public func operatorOfSession(hash: String, now: Int64) async throws -> OperatorAccount? {
        try await database.readStatement(
            """
            SELECT o.operator_id, o.email, o.role, o.password_hash, o.is_disabled, o.created_at
            FROM operator_sessions s JOIN operators o ON o.operator_id = s.operator_id
            WHERE s.session_hash = ? AND s.expires_at > ? AND o.is_disabled = 0
            """,
            [.text(hash), .integer(now)]
        ).first.map(Self.operatorAccount)
    }

    public func deleteOperatorSession(hash: String) async throws {
        try await database.write { connection in
            try await connection.execute("DELETE FROM operator_sessions WHERE session_hash = ?", [.text(hash)])
        }
    }

    public func deleteOperatorSessions(operator id: String) async throws {
        try await database.write { connection in
            try await connection.execute("DELETE FROM operator_sessions WHERE operator_id = ?", [.text(id)])
        }
    }

    public func setOperatorDisabled(_ disabled: Bool, operator id: String) async throws {
        try await database.write { connection in
            try await connection.execute(
                "UPDATE operators SET is_disabled = ? WHERE operator_id = ?",
                [.integer(disabled ? 1 : 0), .text(id)]
            )
            if disabled { try await connection.execute("DELETE FROM operator_sessions WHERE operator_id = ?", [.text(id)]) }
        }
    }

    public func appendConsoleAudit(_ entry: ConsoleAuditEntry) async throws {
        try await database.write { connection in
            try await connection.execute(
                "INSERT INTO console_audit (at, operator_email, action, container, target, subject_user) VALUES (?, ?, ?, ?, ?, ?)",
                [
                    .integer(entry.at), .text(entry.operatorEmail), .text(entry.action), entry.container.map { .text($0) } ?? .null,
                    .text(entry.target), entry.subjectUser.map { .text($0) } ?? .null,
                ]
            )
        }
    }

    public func consoleAudit(limit: Int) async throws -> [ConsoleAuditEntry] {
        try await database.readStatement(
            "SELECT at, operator_email, action, container, target, subject_user FROM console_audit ORDER BY at DESC LIMIT ?",
            [.integer(Int64(limit))]
        ).map { row in
            ConsoleAuditEntry(
                at: row.int(0),
                operatorEmail: row.string(1),
                action: row.string(2),
                container: row[3].text,
                target: row.string(4),
                subjectUser: row[5].text
            )
        }
    }

    public func footprint(of user: String, in environment: ContainerEnvironment, now: Int64) async throws -> UserFootprint {
        let scope: [SQLValue] = [.text(environment.container), .text(environment.environment.rawValue), .text(user)]
        // One statement, one snapshot: the counts agree with each other.
        let rows = try await database.readStatement(
            """
            SELECT
              (SELECT COUNT(*) FROM zones WHERE container = ? AND environment = ? AND owner = ? AND is_deleted = 0),
              (SELECT COUNT(*) FROM records WHERE container = ? AND environment = ? AND owner = ? AND is_deleted = 0),
              (SELECT COUNT(*) FROM shares WHERE container = ? AND environment = ? AND owner = ?),
              (SELECT COUNT(*) FROM share_participants WHERE container = ? AND environment = ? AND user_record_name = ?
                 AND owner <> user_record_name AND acceptance = 'ACCEPTED'),
              (SELECT COUNT(*) FROM subscriptions WHERE container = ? AND environment = ? AND user_record_name = ?),
              (SELECT COUNT(DISTINCT session_id) FROM web_auth_tokens WHERE container = ? AND user_record_name = ? AND expires_at > ?)
            """,
            scope + scope + scope + scope + scope + [.text(environment.container), .text(user), .integer(now)]
        )
        let row = rows.first ?? SQLRow(values: Array(repeating: .integer(0), count: 6))
        return UserFootprint(
            zones: row.int(0),
            records: row.int(1),
            sharesOwned: row.int(2),
            sharesJoined: row.int(3),
            subscriptions: row.int(4),
            sessions: row.int(5)
        )
    }

    public func containerEnvironments() async throws -> [ContainerEnvironment] {
        try await database.readStatement("SELECT container, environment FROM containers ORDER BY container, environment", []).compactMap { row in
            Environment(rawValue: row.string(1)).map { ContainerEnvironment(container: row.string(0), environment: $0) }
        }
    }

    public func storageByContainer() async throws -> [ContainerStorage] {
        // Counted from what is stored, as a quota's recount does: the running counts exist only
        // for containers with a quota.
        try await database.readStatement(
            """
            SELECT container, environment, SUM(bytes), COUNT(DISTINCT owner) FROM (
                SELECT container, environment, owner, \(database.dialect.recordSize) AS bytes FROM records WHERE is_deleted = 0
                UNION ALL
                SELECT container, environment, owner, size AS bytes FROM assets) stored
            GROUP BY container, environment ORDER BY container, environment
            """,
            []
        ).compactMap { row in
            Environment(rawValue: row.string(1)).map {
                ContainerStorage(environment: ContainerEnvironment(container: row.string(0), environment: $0), bytes: row.int(2), owners: row.int(3))
            }
        }
    }

    private static let operatorColumns = "SELECT operator_id, email, role, password_hash, is_disabled, created_at FROM operators"

    private static func operatorBinds(_ account: OperatorAccount) -> [SQLValue] {
        [
            .text(account.id), .text(account.email), .text(account.role.rawValue), account.passwordHash.map { .text($0) } ?? .null,
            .integer(account.isDisabled ? 1 : 0), .integer(account.createdAt),
        ]
    }

    private static func operatorAccount(_ row: SQLRow) -> OperatorAccount {
        OperatorAccount(
            id: row.string(0),
            email: row.string(1),
            role: OperatorRole(rawValue: row.string(2)) ?? .readOnly,
            passwordHash: row[3].text,
            isDisabled: row.int(4) != 0,
            createdAt: row.int(5)
        )
    }
}
