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
    /// The record's identity.
    public var recordID: RecordID
    /// The record's type, such as `Note`.
    public var recordType: String
    /// The server's version tag; it changes on every save.
    public var recordChangeTag: String
    /// Plain field values by name.
    public var fields: [NameKey: FieldValue]
    /// Encrypted field values by name (in clear text in memory only).
    public var encryptedFields: [NameKey: FieldValue]
    /// The parent record's name, for hierarchical sharing; always in the same zone. No record
    /// may have an empty name: setting one is the same as setting `nil`.
    public var parentRecordName: String? {
        get { parentName.isEmpty ? nil : parentName }
        set { parentName = newValue ?? "" }
    }
    /// On the root of a record share: the share record's name (CloudKit's `share` reference).
    /// An empty name is the same as `nil`.
    public var shareRecordName: String? {
        get { shareName.isEmpty ? nil : shareName }
        set { shareName = newValue ?? "" }
    }
    /// The share whose hierarchy holds the record: the share of the nearest record, itself
    /// included, on its `parent` chain that is a share's root. The server maintains it.
    public var containingShare: String? {
        get { containingShareName.isEmpty ? nil : containingShareName }
        set { containingShareName = newValue ?? "" }
    }
    /// On a share record: the share as the reader may see it.
    public var shareDetails: ShareDetails? {
        get { sharedDetailsStorage.first }
        set { sharedDetailsStorage = newValue.map { [$0] } ?? [] }
    }

    // The optional members above are kept without optionals: an empty name (which no record
    // may have) for none, and an empty array for no share details. An optional of a counted
    // reference in a value this large makes the optimizer copy the whole record, then destroy
    // the original, where it could move it: fifteen retains and as many releases, at every
    // initializer and return of a record.
    private var parentName: String
    private var shareName: String
    private var containingShareName: String
    /// Where ``shareDetails`` is kept: out of line, since few records are shares and a record
    /// is copied often (it halves the record's inline size). An empty array costs nothing.
    private var sharedDetailsStorage: [ShareDetails]
    /// When and by whom the record was created.
    public var created: ChangeStamp
    /// When and by whom the record was last changed.
    public var modified: ChangeStamp

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
        self.recordID = recordID
        self.recordType = recordType
        self.recordChangeTag = recordChangeTag
        self.fields = fields
        self.encryptedFields = encryptedFields
        self.parentName = parentRecordName ?? ""
        self.shareName = shareRecordName ?? ""
        self.containingShareName = ""
        self.sharedDetailsStorage = []
        self.created = created
        self.modified = modified
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
