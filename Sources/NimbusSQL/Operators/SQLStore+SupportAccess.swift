//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusModel
public import NimbusStore

extension SQLStore: SupportAccessStore {
    public func addSupportGrant(_ grant: SupportGrant) async throws {
        try await database.write { connection in
            try await connection.execute(
                """
                INSERT INTO support_grants (grant_id, container, environment, user_record_name, zone_name, created_at, expires_at, revoked_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, NULL)
                """,
                [
                    .text(grant.id), .text(grant.environment.container), .text(grant.environment.environment.rawValue), .text(grant.user),
                    grant.zoneName.map { .text($0) } ?? .null, .integer(grant.createdAt), .integer(grant.expiresAt),
                ]
            )
        }
    }

    public func supportGrants(of user: String, in environment: ContainerEnvironment, limit: Int) async throws -> [SupportGrant] {
        try await database.readStatement(
            """
            SELECT grant_id, zone_name, created_at, expires_at, revoked_at FROM support_grants
            WHERE container = ? AND environment = ? AND user_record_name = ? ORDER BY created_at DESC, grant_id LIMIT ?
            """,
            [.text(environment.container), .text(environment.environment.rawValue), .text(user), .integer(Int64(limit))]
        ).map { row in
            SupportGrant(
                id: row.string(0),
                environment: environment,
                user: user,
                zoneName: row[1].text,
                createdAt: row.int(2),
                expiresAt: row.int(3),
                revokedAt: row[4].integer
            )
        }
    }

    public func revokeSupportGrant(id: String, of user: String, in environment: ContainerEnvironment, now: Int64) async throws -> Bool {
        try await database.write { connection in
            try await !connection.query(
                """
                UPDATE support_grants SET revoked_at = ?
                WHERE grant_id = ? AND container = ? AND environment = ? AND user_record_name = ? AND revoked_at IS NULL AND expires_at > ?
                RETURNING grant_id
                """,
                [
                    .integer(now), .text(id), .text(environment.container), .text(environment.environment.rawValue), .text(user),
                    .integer(now),
                ]
            ).isEmpty
        }
    }

    public func recordSupportRead(_ read: SupportRead, audit: ConsoleAuditEntry) async throws {
        try await database.write { connection in
            try await connection.execute(
                """
                INSERT INTO support_reads (grant_id, position, at, operator_email, what)
                VALUES (?, (SELECT COALESCE(MAX(position), 0) + 1 FROM support_reads WHERE grant_id = ?), ?, ?, ?)
                """,
                [.text(read.grantID), .text(read.grantID), .integer(read.at), .text(read.operatorEmail), .text(read.what)]
            )
            try await connection.execute(
                "INSERT INTO console_audit (at, operator_email, action, container, target, subject_user) VALUES (?, ?, ?, ?, ?, ?)",
                [
                    .integer(audit.at), .text(audit.operatorEmail), .text(audit.action), audit.container.map { .text($0) } ?? .null,
                    .text(audit.target), audit.subjectUser.map { .text($0) } ?? .null,
                ]
            )
        }
    }

    public func supportReads(grantIDs: [String], limit: Int) async throws -> [SupportRead] {
        guard !grantIDs.isEmpty else { return [] }
        let marks = SQLStatement.placeholders(grantIDs.count)
        return try await database.readStatement(
            "SELECT grant_id, at, operator_email, what FROM support_reads WHERE grant_id IN (\(marks)) ORDER BY at DESC, position DESC LIMIT ?",
            grantIDs.map { .text($0) } + [.integer(Int64(limit))]
        ).map { row in
            SupportRead(grantID: row.string(0), at: row.int(1), operatorEmail: row.string(2), what: row.string(3))
        }
    }
}
