//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

/// A ``Record``'s stored values, as one value.
///
/// The optional members of a record are kept here without optionals: an empty name (which no
/// record may have) for none, and an empty array for no share details. An optional of a
/// counted reference in a value this large makes the optimizer copy the whole value, then
/// destroy the original, where it could move it.
@usableFromInline struct RecordValues: Hashable, Sendable {
    @usableFromInline var recordID: RecordID
    @usableFromInline var recordType: String
    @usableFromInline var recordChangeTag: String
    @usableFromInline var fields: [NameKey: FieldValue]
    @usableFromInline var encryptedFields: [NameKey: FieldValue]
    @usableFromInline var parentName: String
    @usableFromInline var shareName: String
    @usableFromInline var containingShareName: String
    /// Where the share details are kept: an array, since few records are shares and an empty
    /// array costs nothing.
    @usableFromInline var sharedDetailsStorage: [ShareDetails]
    @usableFromInline var created: ChangeStamp
    @usableFromInline var modified: ChangeStamp
}

/// The box a ``Record`` keeps its values in, shared between copies of the record until one of
/// them changes.
///
/// `@unchecked Sendable`: a record changes its box's values only while it holds the box's only
/// reference (`isKnownUniquelyReferenced`), so no other record, on any thread, can see the box
/// change; copies that share a box only read it.
@usableFromInline final class RecordBox: @unchecked Sendable {
    @usableFromInline var values: RecordValues

    @usableFromInline init(_ values: RecordValues) {
        self.values = values
    }
}
