//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import NimbusModel
public import NimbusStore

extension SQLStore: ContactStore {
    public func saveVerification(_ verification: ContactVerification) async throws {
        let (kind, value) = try Self.contactKey(verification.address)
        try await database.write { connection in
            try await connection.execute(
                """
                INSERT INTO contact_verifications (container, user_record_name, kind, value, code_hash, expires_at, failed_attempts)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (container, user_record_name, kind, value) DO UPDATE SET
                    code_hash = excluded.code_hash, expires_at = excluded.expires_at, failed_attempts = excluded.failed_attempts
                """,
                [
                    .text(verification.container), .text(verification.userRecordName), .text(kind), .text(value),
                    .text(verification.codeHash), .integer(verification.expiresAt), .integer(Int64(verification.failedAttempts)),
                ]
            )
        }
    }

    public func verification(of address: LookupInfo, by userRecordName: String, inContainer container: String) async throws
        -> ContactVerification?
    {
        let (kind, value) = try Self.contactKey(address)
        let rows = try await database.readStatement(
            """
            SELECT code_hash, expires_at, failed_attempts FROM contact_verifications
            WHERE container = ? AND user_record_name = ? AND kind = ? AND value = ?
            """,
            [.text(container), .text(userRecordName), .text(kind), .text(value)]
        )
        return rows.first.map { row in
            ContactVerification(
                container: container,
                userRecordName: userRecordName,
                address: address,
                codeHash: row.string(0),
                expiresAt: row.int(1),
                failedAttempts: Int(row.int(2))
            )
        }
    }

    public func deleteVerification(of address: LookupInfo, by userRecordName: String, inContainer container: String) async throws {
        let (kind, value) = try Self.contactKey(address)
        try await database.write { connection in
            try await connection.execute(
                "DELETE FROM contact_verifications WHERE container = ? AND user_record_name = ? AND kind = ? AND value = ?",
                [.text(container), .text(userRecordName), .text(kind), .text(value)]
            )
        }
    }

    public func linkAddress(_ address: LookupInfo, to userRecordName: String, inContainer container: String) async throws {
        let (kind, value) = try Self.contactKey(address)
        let linkedAt = clock.millisecondsSince1970
        try await database.write { connection in
            // An address finds one user: whoever has it already keeps it.
            let owners = try await connection.query(
                """
                SELECT user_record_name FROM users WHERE container = ? AND \(kind == "email" ? "email" : "phone") = ?
                UNION ALL
                SELECT user_record_name FROM user_contacts WHERE container = ? AND kind = ? AND value = ?
                """,
                [.text(container), .text(value), .text(container), .text(kind), .text(value)]
            )
            if owners.contains(where: { $0.string(0) != userRecordName }) {
                throw StoreError(.alreadyExists, detail: "another user has this \(kind)")
            }
            if owners.isEmpty {
                try await connection.execute(
                    "INSERT INTO user_contacts (container, kind, value, user_record_name, verified_at) VALUES (?, ?, ?, ?, ?)",
                    [.text(container), .text(kind), .text(value), .text(userRecordName), .integer(linkedAt)]
                )
            }
            try await connection.execute(
                "DELETE FROM contact_verifications WHERE container = ? AND user_record_name = ? AND kind = ? AND value = ?",
                [.text(container), .text(userRecordName), .text(kind), .text(value)]
            )
        }
    }

    public func addresses(of userRecordName: String, inContainer container: String) async throws -> [LookupInfo] {
        let rows = try await database.readStatement(
            """
            SELECT 'email', email FROM users WHERE container = ? AND user_record_name = ? AND email IS NOT NULL
            UNION ALL
            SELECT 'phone', phone FROM users WHERE container = ? AND user_record_name = ? AND phone IS NOT NULL
            UNION ALL
            SELECT kind, value FROM user_contacts WHERE container = ? AND user_record_name = ?
            """,
            Array(repeating: [SQLValue.text(container), .text(userRecordName)], count: 3).flatMap { $0 }
        )
        return rows.map { row in row.string(0) == "email" ? .emailAddress(row.string(1)) : .phoneNumber(row.string(1)) }
    }

    /// The `kind` and normal-form `value` of an address; record names are not addresses.
    static func contactKey(_ address: LookupInfo) throws -> (kind: String, value: String) {
        switch address {
        case .emailAddress(let email): return ("email", LookupInfo.normalizedEmail(email))
        case .phoneNumber(let phone): return ("phone", LookupInfo.normalizedPhone(phone))
        case .userRecordName: throw StoreError(.database, detail: "a user record name is not a contact address")
        }
    }
}
