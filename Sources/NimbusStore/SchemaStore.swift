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
    func fields(ofRecordType recordType: String, in container: ContainerEnvironment) async throws -> [String: FieldSchema]
}

/// What the schema knows about one field.
public struct FieldSchema: Sendable, Hashable {
    /// The field's type, fixed when the field was first saved.
    public var type: FieldType
    /// Whether the field is one of CloudKit's `encryptedValues`.
    public var isEncrypted: Bool

    /// Creates a field schema.
    public init(type: FieldType, isEncrypted: Bool) {
        self.type = type
        self.isEncrypted = isEncrypted
    }
}
