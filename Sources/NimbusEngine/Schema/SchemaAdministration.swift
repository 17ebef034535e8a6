//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import NimbusModel
public import NimbusStore

/// A container environment's record types: record type → field name → field.
public typealias RecordSchema = [String: [NameKey: FieldSchema]]

/// One thing adding a schema changes: a new record type, a new field, or a new index marking.
public struct SchemaChange: Sendable, Hashable, CustomStringConvertible {
    /// What changes.
    public enum Kind: Sendable, Hashable {
        /// A record type the target does not have.
        case recordType
        /// A field the record type does not have, with its type.
        case field(FieldSchema)
        /// An index marking the field lacks: `queryable`, `sortable` or `searchable`.
        case index(String)
    }

    /// The record type.
    public var recordType: String
    /// The field, for a field or an index.
    public var field: String?
    /// What changes.
    public var kind: Kind

    public var description: String {
        switch kind {
        case .recordType: "+ record type \(recordType)"
        case .field(let schema): "+ field \(recordType).\(field ?? "") \(schema.typeDescription)\(Self.markings(schema))"
        case .index(let marking): "+ \(marking) \(recordType).\(field ?? "")"
        }
    }

    private static func markings(_ field: FieldSchema) -> String {
        let names = [(field.isQueryable, "queryable"), (field.isSortable, "sortable"), (field.isSearchable, "searchable")]
            .filter(\.0).map(\.1)
        return names.isEmpty ? "" : " (" + names.joined(separator: ", ") + ")"
    }
}

/// Schema export, import and deployment.
///
/// Development creates record types and fields as records are saved, each with every index it
/// can have; production gets them by deployment, which adds what development has and
/// production lacks and never removes anything. A field whose type differs between the two is
/// a conflict, and nothing is deployed.
public struct SchemaAdministration: Sendable {
    let store: any SchemaStore & AccountStore

    /// Creates the administration over a store of schemas and containers.
    public init(store: any SchemaStore & AccountStore) {
        self.store = store
    }

    /// The record types of a container environment.
    /// - Throws: `.unknownItem` when the container does not exist.
    public func schema(of container: ContainerEnvironment) async throws -> RecordSchema {
        try await requireContainer(container.container)
        return try await store.schema(of: container)
    }

    /// A container exists once either environment was created; production's schema is then
    /// what was deployed to it, even before its environment is.
    private func requireContainer(_ container: String) async throws {
        guard try await store.developer(ofContainer: container) == nil else { return }
        throw NimbusError(.unknownItem, "container \(container) does not exist; create it with: nimbus container create \(container)")
    }

    /// What adding `schema` to `container` would change, in order.
    /// - Throws: ``SchemaConflict`` for a field the two define differently.
    public func changes(adding schema: RecordSchema, to container: ContainerEnvironment) async throws -> [SchemaChange] {
        let target = try await self.schema(of: container)
        var changes: [SchemaChange] = []
        for (recordType, fields) in schema.sorted(by: { $0.key < $1.key }) {
            let existing = target[recordType]
            if existing == nil { changes.append(SchemaChange(recordType: recordType, kind: .recordType)) }
            for (name, field) in fields.sorted(by: { $0.key < $1.key }) {
                guard let known = existing?[name] else {
                    changes.append(SchemaChange(recordType: recordType, field: name.string, kind: .field(field)))
                    continue
                }
                guard known.type == field.type, known.isEncrypted == field.isEncrypted else {
                    throw SchemaConflict(recordType: recordType, field: name.string, existing: known, incoming: field)
                }
                for (wanted, has, marking) in [
                    (field.isQueryable, known.isQueryable, "queryable"), (field.isSortable, known.isSortable, "sortable"),
                    (field.isSearchable, known.isSearchable, "searchable"),
                ] where wanted && !has {
                    changes.append(SchemaChange(recordType: recordType, field: name.string, kind: .index(marking)))
                }
            }
        }
        return changes
    }

    /// Adds `schema` to `container`; returns what changed.
    /// - Throws: ``SchemaConflict``, and nothing is added.
    @discardableResult
    public func add(_ schema: RecordSchema, to container: ContainerEnvironment) async throws -> [SchemaChange] {
        let changes = try await changes(adding: schema, to: container)
        if !changes.isEmpty { try await store.addSchema(schema, to: container) }
        return changes
    }

    /// Deploys a container's development schema to production; returns what changed (with
    /// `dryRun`, what would change, and nothing is deployed).
    public func deploy(container: String, dryRun: Bool = false) async throws -> [SchemaChange] {
        let development = try await schema(of: ContainerEnvironment(container: container, environment: .development))
        let production = ContainerEnvironment(container: container, environment: .production)
        return dryRun ? try await changes(adding: development, to: production) : try await add(development, to: production)
    }
}
