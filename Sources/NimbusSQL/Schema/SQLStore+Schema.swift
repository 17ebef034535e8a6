//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusModel
public import NimbusStore

extension SQLStore: SchemaStore {
    public func fields(ofRecordType recordType: String, in container: ContainerEnvironment) async throws -> [String: FieldSchema] {
        try await database.read { connection in
            try await Self.fields(ofRecordType: recordType, in: container, on: connection)
        }
    }

    static func fields(
        ofRecordType recordType: String,
        in container: ContainerEnvironment,
        on connection: any SQLConnection
    ) async throws -> [String: FieldSchema] {
        let rows = try await connection.query(
            """
            SELECT field_name, field_type, is_encrypted FROM record_fields
            WHERE container = ? AND environment = ? AND record_type = ?
            """,
            [.text(container.container), .text(container.environment.rawValue), .text(recordType)]
        )
        var fields: [String: FieldSchema] = [:]
        for row in rows {
            guard let type = FieldType(rawValue: row.string(1)) else { continue }
            fields[row.string(0)] = FieldSchema(type: type, isEncrypted: row.int(2) != 0)
        }
        return fields
    }

    /// The first writer of a field decides its type; later writers' inserts do nothing.
    static func addFields(
        _ fields: [String: FieldSchema],
        toRecordType recordType: String,
        in container: ContainerEnvironment,
        on connection: any SQLConnection
    ) async throws {
        for (name, field) in fields.sorted(by: { $0.key < $1.key }) {
            try await connection.execute(
                """
                INSERT INTO record_fields (container, environment, record_type, field_name, field_type, is_encrypted)
                VALUES (?, ?, ?, ?, ?, ?)
                ON CONFLICT (container, environment, record_type, field_name) DO NOTHING
                """,
                [
                    .text(container.container), .text(container.environment.rawValue), .text(recordType), .text(name),
                    .text(field.type.rawValue), .integer(field.isEncrypted ? 1 : 0),
                ]
            )
        }
    }
}
