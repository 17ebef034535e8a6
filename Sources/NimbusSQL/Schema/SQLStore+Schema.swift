//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import NimbusModel
public import NimbusStore

extension SQLStore: SchemaStore {
    public func fields(ofRecordType recordType: String, in container: ContainerEnvironment) async throws -> [NameKey: FieldSchema] {
        try await database.read { connection in
            try await Self.fields(ofRecordType: recordType, in: container, on: connection)
        }
    }

    public func schema(of container: ContainerEnvironment) async throws -> [String: [NameKey: FieldSchema]] {
        let rows = try await database.readStatement(
            "SELECT record_type, \(Self.fieldColumns) FROM record_fields WHERE container = ? AND environment = ?",
            [.text(container.container), .text(container.environment.rawValue)]
        )
        var schema: [String: [NameKey: FieldSchema]] = [:]
        for row in rows {
            guard let (name, field) = Self.field(from: row, at: 1) else { continue }
            schema[row.string(0), default: [:]][name] = field
        }
        return schema
    }

    public func addSchema(_ schema: [String: [NameKey: FieldSchema]], to container: ContainerEnvironment) async throws {
        // One writer at a time per container environment, so the conflict check holds.
        try await database.write(serializing: "schema.\(container.container).\(container.environment.rawValue)") { connection in
            for (recordType, fields) in schema.sorted(by: { $0.key < $1.key }) {
                let existing = try await Self.fields(ofRecordType: recordType, in: container, on: connection)
                for (name, field) in fields.sorted(by: { $0.key < $1.key }) {
                    if let known = existing[name], known.type != field.type || known.isEncrypted != field.isEncrypted {
                        throw SchemaConflict(recordType: recordType, field: name.string, existing: known, incoming: field)
                    }
                }
                try await Self.addFields(
                    fields,
                    toRecordType: recordType,
                    in: container,
                    on: connection,
                    markings: .asGiven,
                    readAsAbsent: Set(fields.keys).subtracting(existing.keys)
                )
            }
        }
    }

    /// The columns ``field(from:at:)`` reads, in its order.
    private static let fieldColumns = "field_name, field_type, is_encrypted, is_queryable, is_sortable, is_searchable"

    private static func field(from row: SQLRow, at start: Int) -> (NameKey, FieldSchema)? {
        guard let type = FieldType(rawValue: row.string(start + 1)) else { return nil }
        let field = FieldSchema(
            type: type,
            isEncrypted: row.int(start + 2) != 0,
            isQueryable: row.int(start + 3) != 0,
            isSortable: row.int(start + 4) != 0,
            isSearchable: row.int(start + 5) != 0
        )
        return (NameKey(row.string(start)), field)
    }

    static func fields(
        ofRecordType recordType: String,
        in container: ContainerEnvironment,
        on connection: any SQLConnection
    ) async throws -> [NameKey: FieldSchema] {
        let rows = try await connection.query(
            "SELECT \(fieldColumns) FROM record_fields WHERE container = ? AND environment = ? AND record_type = ?",
            [.text(container.container), .text(container.environment.rawValue), .text(recordType)]
        )
        var fields: [NameKey: FieldSchema] = [:]
        for row in rows {
            if let (name, field) = field(from: row, at: 0) { fields[name] = field }
        }
        return fields
    }

    /// How a field a write brings is marked.
    enum FieldMarkings {
        /// As a save creates it: with every index it can have in development (where indexes
        /// come as queries need them), with none in production (they are deployed).
        case byEnvironment
        /// As given (an imported or deployed schema); markings already there stay.
        case asGiven
    }

    /// Adds fields; the first writer of a field decides its type, and markings are only added.
    ///
    /// `readAsAbsent` names the fields the caller read as absent in this transaction. On
    /// PostgreSQL another tenant's write may add one of them since (a keyed write's statements
    /// each see the newest rows): the upsert returns the stored row, and a type other than the
    /// one given makes the write run again (``FieldAddedConcurrently``), to read the stored
    /// type. A field the caller did not read keeps its type silently, as it always did.
    static func addFields(
        _ fields: [NameKey: FieldSchema],
        toRecordType recordType: String,
        in container: ContainerEnvironment,
        on connection: any SQLConnection,
        markings: FieldMarkings = .byEnvironment,
        readAsAbsent: Set<NameKey> = []
    ) async throws {
        for (name, given) in fields.sorted(by: { $0.key < $1.key }) {
            let field: FieldSchema =
                switch markings {
                case .asGiven: given
                case .byEnvironment: container.environment == .development ? given.withEveryIndex : given
                }
            let stored = try await connection.query(
                """
                INSERT INTO record_fields (container, environment, record_type, field_name, field_type, is_encrypted,
                    is_queryable, is_sortable, is_searchable)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (container, environment, record_type, field_name) DO UPDATE SET
                    is_queryable = CASE WHEN excluded.is_queryable = 1 THEN 1 ELSE record_fields.is_queryable END,
                    is_sortable = CASE WHEN excluded.is_sortable = 1 THEN 1 ELSE record_fields.is_sortable END,
                    is_searchable = CASE WHEN excluded.is_searchable = 1 THEN 1 ELSE record_fields.is_searchable END
                RETURNING field_type, is_encrypted
                """,
                [
                    .text(container.container), .text(container.environment.rawValue), .text(recordType), .text(name.string),
                    .text(field.type.rawValue), .integer(field.isEncrypted ? 1 : 0), .integer(field.isQueryable ? 1 : 0),
                    .integer(field.isSortable ? 1 : 0), .integer(field.isSearchable ? 1 : 0),
                ]
            )
            if readAsAbsent.contains(name), let row = stored.first, row.string(0) != field.type.rawValue || (row.int(1) != 0) != field.isEncrypted {
                throw FieldAddedConcurrently(recordType: recordType, field: name.string)
            }
        }
    }
}
