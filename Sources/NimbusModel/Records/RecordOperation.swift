//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

/// One operation of a `records/modify` request.
///
/// The kinds follow CloudKit Web Services' `operationType`s; see ``Kind`` for what each needs.
public struct RecordOperation: Sendable, Hashable {
    /// What an operation does.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// Creates a record; fails with `EXISTS` if the name is taken.
        case create
        /// Changes the listed fields; needs the current `recordChangeTag`.
        case update
        /// Changes the listed fields whatever the tag; creates the record if absent.
        case forceUpdate
        /// Replaces every field; needs the current `recordChangeTag`.
        case replace
        /// Replaces every field whatever the tag; creates the record if absent.
        case forceReplace
        /// Deletes a record; a tag, if given, must be current.
        case delete
        /// Deletes a record whatever its tag.
        case forceDelete

        /// Whether the operation removes the record.
        public var isDelete: Bool { self == .delete || self == .forceDelete }
    }

    /// How an operation changes the record's parent.
    public enum ParentChange: Sendable, Hashable {
        /// Leave the parent as it is (or none, for a new record).
        case unchanged
        /// Set the parent to this record of the same zone.
        case set(String)
        /// Remove the parent.
        case clear
    }

    /// What the operation does (its `operationType`).
    public var kind: Kind
    /// The record's name; `nil` on a create asks the server to make one.
    public var recordName: String?
    /// The record's type; required when the operation creates a record, and must match an existing one.
    public var recordType: String?
    /// The tag the client last saw; required by `update` and `replace`.
    public var recordChangeTag: String?
    /// Field values by name; a `nil` value removes the field.
    public var fields: [NameKey: FieldInput]
    /// How the operation changes the record's parent.
    public var parent: ParentChange
    /// For a share record: what changes beyond its fields (`forRecord`, `publicPermission`,
    /// `participants`).
    public var share: ShareChange?

    /// Creates an operation.
    public init(
        kind: Kind,
        recordName: String? = nil,
        recordType: String? = nil,
        recordChangeTag: String? = nil,
        fields: [NameKey: FieldInput] = [:],
        parent: ParentChange = .unchanged,
        share: ShareChange? = nil
    ) {
        self.kind = kind
        self.recordName = recordName
        self.recordType = recordType
        self.recordChangeTag = recordChangeTag
        self.fields = fields
        self.parent = parent
        self.share = share
    }
}

/// A field value as a client sent it.
public struct FieldInput: Sendable, Hashable {
    /// The value; `nil` removes the field.
    public var value: FieldValue?
    /// Whether the client named the type; if not, the schema's type wins where the shapes agree.
    public var isTypeExplicit: Bool
    /// Whether the field is one of CloudKit's `encryptedValues`.
    public var isEncrypted: Bool

    /// Creates a field input.
    public init(_ value: FieldValue?, isTypeExplicit: Bool = true, isEncrypted: Bool = false) {
        self.value = value
        self.isTypeExplicit = isTypeExplicit
        self.isEncrypted = isEncrypted
    }
}
