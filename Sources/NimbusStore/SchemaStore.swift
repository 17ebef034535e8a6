//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import NimbusModel

/// Stores the record types of each container environment and the type of each of their fields.
///
/// Fields are added as records are saved ("just in time", as CloudKit's development environment
/// does), inside the records' own transaction (``ZoneTransaction/addFields(_:toRecordType:)``);
/// a field keeps its type forever after, which is what lets a query know that a field is
/// encrypted or what type an untyped value has.
public protocol SchemaStore: Sendable {
    /// Returns the fields known for a record type, by name.
    func fields(ofRecordType recordType: String, in container: ContainerEnvironment) async throws -> [NameKey: FieldSchema]

    /// Every record type of a container environment, with its fields.
    func schema(of container: ContainerEnvironment) async throws -> [String: [NameKey: FieldSchema]]

    /// Adds what `schema` has and the container environment lacks: record types, fields, and
    /// index markings (a marking is never removed). Nothing is applied if a field exists with
    /// another type or encryption: throws ``SchemaConflict``.
    func addSchema(_ schema: [String: [NameKey: FieldSchema]], to container: ContainerEnvironment) async throws
}

/// A field defined one way in a schema and another way where it was to be added.
public struct SchemaConflict: Error, Sendable, Hashable, CustomStringConvertible {
    /// The record type.
    public var recordType: String
    /// The field.
    public var field: String
    /// How the target defines it.
    public var existing: FieldSchema
    /// How the schema being added defines it.
    public var incoming: FieldSchema

    /// Creates a conflict.
    public init(recordType: String, field: String, existing: FieldSchema, incoming: FieldSchema) {
        self.recordType = recordType
        self.field = field
        self.existing = existing
        self.incoming = incoming
    }

    public var description: String {
        "\(recordType).\(field) is \(existing.typeDescription) here but \(incoming.typeDescription) in the schema being added"
    }
}

/// What the schema knows about one field.
public struct FieldSchema: Sendable, Hashable {
    /// The field's type, fixed when the field was first saved.
    public var type: FieldType
    /// Whether the field is one of CloudKit's `encryptedValues`.
    public var isEncrypted: Bool
    /// Whether queries may filter on it (in production; development allows every field).
    public var isQueryable: Bool
    /// Whether queries may sort by it (in production).
    public var isSortable: Bool
    /// Whether token searches (`CONTAINS_ANY_TOKENS`) may look in it (in production).
    public var isSearchable: Bool

    /// Creates a field schema.
    public init(type: FieldType, isEncrypted: Bool, isQueryable: Bool = false, isSortable: Bool = false, isSearchable: Bool = false) {
        self.type = type
        self.isEncrypted = isEncrypted
        self.isQueryable = isQueryable
        self.isSortable = isSortable
        self.isSearchable = isSearchable
    }

    /// The same field with every index it can have: what development gives a field it creates.
    public var withEveryIndex: FieldSchema {
        var field = self
        field.isQueryable = !isEncrypted
        field.isSortable = !isEncrypted && !type.isList && ![.asset, .location].contains(type)
        field.isSearchable = !isEncrypted && type == .string
        return field
    }

    /// The markings of both: a marking is only ever added.
    public func merging(_ other: FieldSchema) -> FieldSchema {
        var field = self
        field.isQueryable = isQueryable || other.isQueryable
        field.isSortable = isSortable || other.isSortable
        field.isSearchable = isSearchable || other.isSearchable
        return field
    }

    /// Its type, and whether it is encrypted, for messages.
    public var typeDescription: String { isEncrypted ? "encrypted \(type.rawValue)" : type.rawValue }
}
