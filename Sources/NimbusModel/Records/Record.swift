//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

/// A record: typed fields plus the system fields the server maintains.
///
/// `fields` are stored as they are; `encryptedFields` are CloudKit's `encryptedValues`: stored
/// encrypted at rest and never usable in a query filter or sort. A name is in at most one of
/// the two.
public struct Record: Sendable, Hashable {
    /// The record's values, kept out of line and shared between copies until one of them
    /// changes: a record is passed and copied many times on its way through a save, and a copy
    /// of the values themselves costs a retain and a release for each of their fifteen counted
    /// references, where a copy of the box costs one.
    @usableFromInline var box: RecordBox

    /// The record's identity.
    @inlinable
    public var recordID: RecordID {
        get { box.values.recordID }
        _modify {
            makeUnique()
            yield &box.values.recordID
        }
    }
    /// The record's type, such as `Note`.
    @inlinable
    public var recordType: String {
        get { box.values.recordType }
        _modify {
            makeUnique()
            yield &box.values.recordType
        }
    }
    /// The server's version tag; it changes on every save.
    @inlinable
    public var recordChangeTag: String {
        get { box.values.recordChangeTag }
        _modify {
            makeUnique()
            yield &box.values.recordChangeTag
        }
    }
    /// Plain field values by name.
    @inlinable
    public var fields: [NameKey: FieldValue] {
        get { box.values.fields }
        _modify {
            makeUnique()
            yield &box.values.fields
        }
    }
    /// Encrypted field values by name (in clear text in memory only).
    @inlinable
    public var encryptedFields: [NameKey: FieldValue] {
        get { box.values.encryptedFields }
        _modify {
            makeUnique()
            yield &box.values.encryptedFields
        }
    }
    /// The parent record's name, for hierarchical sharing; always in the same zone. No record
    /// may have an empty name: setting one is the same as setting `nil`.
    @inlinable
    public var parentRecordName: String? {
        get { box.values.parentName.isEmpty ? nil : box.values.parentName }
        set {
            makeUnique()
            box.values.parentName = newValue ?? ""
        }
    }
    /// On the root of a record share: the share record's name (CloudKit's `share` reference).
    /// An empty name is the same as `nil`.
    @inlinable
    public var shareRecordName: String? {
        get { box.values.shareName.isEmpty ? nil : box.values.shareName }
        set {
            makeUnique()
            box.values.shareName = newValue ?? ""
        }
    }
    /// The share whose hierarchy holds the record: the share of the nearest record, itself
    /// included, on its `parent` chain that is a share's root. The server maintains it.
    @inlinable
    public var containingShare: String? {
        get { box.values.containingShareName.isEmpty ? nil : box.values.containingShareName }
        set {
            makeUnique()
            box.values.containingShareName = newValue ?? ""
        }
    }
    /// On a share record: the share as the reader may see it.
    @inlinable
    public var shareDetails: ShareDetails? {
        get { box.values.sharedDetailsStorage.first }
        set {
            makeUnique()
            box.values.sharedDetailsStorage = newValue.map { [$0] } ?? []
        }
    }
    /// When and by whom the record was created.
    @inlinable
    public var created: ChangeStamp {
        get { box.values.created }
        _modify {
            makeUnique()
            yield &box.values.created
        }
    }
    /// When and by whom the record was last changed.
    @inlinable
    public var modified: ChangeStamp {
        get { box.values.modified }
        _modify {
            makeUnique()
            yield &box.values.modified
        }
    }

    /// Gives this record a box of its own before it changes, if another copy shares it.
    @inlinable mutating func makeUnique() {
        if !isKnownUniquelyReferenced(&box) { box = RecordBox(box.values) }
    }

    @inlinable public static func == (lhs: Record, rhs: Record) -> Bool {
        lhs.box === rhs.box || lhs.box.values == rhs.box.values
    }

    @inlinable public func hash(into hasher: inout Hasher) {
        hasher.combine(box.values)
    }

    /// Creates a record.
    public init(
        recordID: RecordID,
        recordType: String,
        recordChangeTag: String = "",
        fields: [NameKey: FieldValue] = [:],
        encryptedFields: [NameKey: FieldValue] = [:],
        parentRecordName: String? = nil,
        shareRecordName: String? = nil,
        created: ChangeStamp,
        modified: ChangeStamp
    ) {
        self.box = RecordBox(
            RecordValues(
                recordID: recordID,
                recordType: recordType,
                recordChangeTag: recordChangeTag,
                fields: fields,
                encryptedFields: encryptedFields,
                parentName: parentRecordName ?? "",
                shareName: shareRecordName ?? "",
                containingShareName: "",
                sharedDetailsStorage: [],
                created: created,
                modified: modified
            )
        )
    }

    /// Creates a record to save: no change tag yet (so it must not exist on the server), and
    /// creation and modification stamps the server fills in. CloudKit's `CKRecord(recordType:recordID:)`.
    public init(
        recordType: String,
        recordID: RecordID,
        fields: [NameKey: FieldValue] = [:],
        encryptedFields: [NameKey: FieldValue] = [:],
        parentRecordName: String? = nil
    ) {
        self.init(
            recordID: recordID,
            recordType: recordType,
            fields: fields,
            encryptedFields: encryptedFields,
            parentRecordName: parentRecordName,
            created: ChangeStamp(timestamp: 0, userRecordName: ""),
            modified: ChangeStamp(timestamp: 0, userRecordName: "")
        )
    }

    /// Every reference in the record's fields (plain and encrypted).
    public var references: [Reference] {
        fields.values.flatMap(\.references) + encryptedFields.values.flatMap(\.references)
    }

    /// Returns a copy with only the named fields, as `desiredKeys` asks; `nil` keeps them all.
    public func keeping(fields desiredKeys: Set<NameKey>?) -> Record {
        guard let desiredKeys else { return self }
        var copy = self
        copy.fields = fields.filter { desiredKeys.contains($0.key) }
        copy.encryptedFields = encryptedFields.filter { desiredKeys.contains($0.key) }
        return copy
    }
}
