//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusModel
public import NimbusStore

extension SQLStore: SchemaStore {
    public func fields(ofRecordType recordType: String, in container: ContainerEnvironment) async throws -> [String: FieldSchema] {
        let rows = try await database.read { connection in
            try await connection.query(
                """
                SELECT field_name, field_type, is_encrypted FROM record_fields
                WHERE container = ? AND environment = ? AND record_type = ?
                """,
                [.text(container.container), .text(container.environment.rawValue), .text(recordType)]
            )
        }
        return Self.schema(from: rows)
    }

    public func addFields(
        _ fields: [String: FieldSchema],
        toRecordType recordType: String,
        in container: ContainerEnvironment
    ) async throws -> [String: FieldSchema] {
        let key: [SQLValue] = [.text(container.container), .text(container.environment.rawValue), .text(recordType)]
        let rows = try await database.write { connection in
            // The first writer of a field decides its type; concurrent writers read the winner back.
            for (name, field) in fields.sorted(by: { $0.key < $1.key }) {
                try await connection.execute(
                    """
                    INSERT INTO record_fields (container, environment, record_type, field_name, field_type, is_encrypted)
                    VALUES (?, ?, ?, ?, ?, ?)
                    ON CONFLICT (container, environment, record_type, field_name) DO NOTHING
                    """,
                    key + [.text(name), .text(field.type.rawValue), .integer(field.isEncrypted ? 1 : 0)]
                )
            }
            return try await connection.query(
                """
                SELECT field_name, field_type, is_encrypted FROM record_fields
                WHERE container = ? AND environment = ? AND record_type = ?
                """,
                key
            )
        }
        return Self.schema(from: rows)
    }

    private static func schema(from rows: [SQLRow]) -> [String: FieldSchema] {
        var fields: [String: FieldSchema] = [:]
        for row in rows {
            guard let type = FieldType(rawValue: row.string(1)) else { continue }
            fields[row.string(0)] = FieldSchema(type: type, isEncrypted: row.int(2) != 0)
        }
        return fields
    }
}
