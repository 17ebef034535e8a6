//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

/// Reads record dictionaries of responses straight from their bytes into ``Record``s.
///
/// A 200-record response is about 100 KB. Parsing it into a ``JSONValue`` tree and then turning
/// the tree into records allocated every object, key and string twice over, and cost more than
/// the SDK's whole budget per request. This reader builds the records without the tree, and
/// reuses the text of the long strings that repeat from record to record (the user record names
/// of the change stamps and the zone's owner).
///
/// It takes only what the server writes: the exact type names, integers as JSON integers, keys
/// without escapes, the keys of a record dictionary and nothing else. Anything else gives `nil`
/// and the caller reads that dictionary with ``RecordWireCoding/record(_:in:at:)``, so the two
/// ways of reading agree on every input (tests compare them).
package struct RecordWireDecoder {
    /// Long strings already made (``sharedTexts``) and their bytes: at most ``sharedStringLimit``
    /// of them. Two arrays rather than one of pairs, so the search borrows the bytes in place
    /// instead of copying (retaining and releasing) a pair per comparison.
    private var sharedBytes: [[UInt8]] = []
    private var sharedTexts: [String] = []
    private static let sharedStringLimit = 4
    /// The last zone, `created` and `modified` dictionaries read (see ``RepeatedJSONValue``).
    private var repeatedZone = RepeatedJSONValue<ZoneID>()
    private var repeatedCreated = RepeatedJSONValue<ChangeStamp>()
    private var repeatedModified = RepeatedJSONValue<ChangeStamp>()

    package init() {}

    /// Reads the record dictionary at the cursor, or returns `nil` with the cursor where it was
    /// when the dictionary is not one this reader takes.
    /// - Parameter defaultZone: the zone of a dictionary that names none.
    package mutating func record(at cursor: inout JSONCursor, in defaultZone: ZoneID) -> Record? {
        let start = cursor.index
        var reader = cursor
        guard let record = try? read(&reader, in: defaultZone) else {
            cursor.index = start
            return nil
        }
        cursor = reader
        return record
    }

    /// Reads the fields object that is the whole of `bytes`, as a store writes one
    /// (`FieldValue.write(_:to:)`), or returns `nil` when it holds something this reader leaves to
    /// the tree reader (`FieldValue.read(fields:at:)`, which then gives the same fields).
    package mutating func fields(in bytes: UnsafeBufferPointer<UInt8>) -> [NameKey: FieldValue]? {
        var cursor = JSONCursor(bytes)
        var fields: [NameKey: FieldValue] = [:]
        var encrypted: [NameKey: FieldValue] = [:]
        guard (try? readFields(&cursor, into: &fields, encrypted: &encrypted)) != nil, encrypted.isEmpty, cursor.isAtEnd() else {
            return nil
        }
        return fields
    }

    // MARK: - Record

    /// Thrown when the dictionary is one for ``RecordWireCoding`` to read.
    private struct NotTaken: Error {}

    private enum Member: UInt16 {
        case recordName = 1, recordType = 2, recordChangeTag = 4, fields = 8, created = 16, modified = 32, zoneID = 64, parent = 128,
            share = 256
    }

    private mutating func read(_ cursor: inout JSONCursor, in defaultZone: ZoneID) throws -> Record {
        try cursor.beginObject()
        var seen: UInt16 = 0
        var name: String?
        var recordType = ""
        var changeTag = ""
        var fields: [NameKey: FieldValue] = [:]
        var encryptedFields: [NameKey: FieldValue] = [:]
        var created = ChangeStamp(timestamp: 0, userRecordName: "")
        var modified = created
        var zoneID = defaultZone
        var parent: String?
        var share: String?
        while let key = try cursor.nextKey() {
            let member = try Self.member(key, of: cursor)
            // A key seen twice means the last one wins: the tree reader's business.
            guard seen & member.rawValue == 0 else { throw NotTaken() }
            seen |= member.rawValue
            switch member {
            case .recordName: name = try text(&cursor)
            case .recordType: recordType = try text(&cursor)
            case .recordChangeTag: changeTag = try text(&cursor)
            case .fields: try readFields(&cursor, into: &fields, encrypted: &encryptedFields)
            case .created: created = try repeating(\.repeatedCreated, &cursor) { try $0.stamp(&$1) }
            case .modified: modified = try repeating(\.repeatedModified, &cursor) { try $0.stamp(&$1) }
            case .zoneID: zoneID = try repeating(\.repeatedZone, &cursor) { try $0.zoneID(&$1) }
            case .parent: parent = try recordName(&cursor)
            case .share: share = try recordName(&cursor)
            }
        }
        guard let name else { throw NotTaken() }
        // Made whole by one initializer: setting the share afterwards made the optimizer copy
        // the record into the return slot and destroy the original.
        return Record(
            recordID: RecordID(recordName: name, zoneID: zoneID),
            recordType: recordType,
            recordChangeTag: changeTag,
            fields: fields,
            encryptedFields: encryptedFields,
            parentRecordName: parent,
            shareRecordName: share,
            created: created,
            modified: modified
        )
    }

    /// The object at the cursor as `read` reads it, or the value of the last one kept in `slot`
    /// when its bytes repeat (see ``RepeatedJSONValue``).
    private mutating func repeating<Value>(
        _ slot: WritableKeyPath<Self, RepeatedJSONValue<Value>>,
        _ cursor: inout JSONCursor,
        _ read: (inout Self, inout JSONCursor) throws -> Value
    ) throws -> Value {
        if let repeated = self[keyPath: slot].take(at: &cursor) { return repeated }
        let start = cursor.index
        let value = try read(&self, &cursor)
        self[keyPath: slot].remember(value, readFrom: start, to: cursor)
        return value
    }

    private static func member(_ key: JSONCursor.StringSpan, of cursor: JSONCursor) throws -> Member {
        // Ordered as the server writes them.
        if cursor.key(key, is: "recordName") { return .recordName }
        if cursor.key(key, is: "recordType") { return .recordType }
        if cursor.key(key, is: "recordChangeTag") { return .recordChangeTag }
        if cursor.key(key, is: "fields") { return .fields }
        if cursor.key(key, is: "created") { return .created }
        if cursor.key(key, is: "modified") { return .modified }
        if cursor.key(key, is: "zoneID") { return .zoneID }
        if cursor.key(key, is: "parent") { return .parent }
        if cursor.key(key, is: "share") { return .share }
        // An error (`serverErrorCode`), a tombstone (`deleted`), a share's own keys, or an
        // escaped spelling: the caller looks at the dictionary itself.
        throw NotTaken()
    }

    // MARK: - Members

    /// Skips a member the dictionary's reader does not use; an escaped key may spell one it
    /// does, so that dictionary is the tree reader's.
    private static func skipUnknownMember(_ key: JSONCursor.StringSpan, _ cursor: inout JSONCursor) throws {
        guard !key.isEscaped else { throw NotTaken() }
        try cursor.skipValue()
    }

    private mutating func stamp(_ cursor: inout JSONCursor) throws -> ChangeStamp {
        var stamp = ChangeStamp(timestamp: 0, userRecordName: "", deviceID: "")
        try cursor.beginObject()
        while let key = try cursor.nextKey() {
            if cursor.key(key, is: "timestamp") {
                guard let timestamp = cursor.integer() else { throw NotTaken() }
                stamp.timestamp = timestamp
            } else if cursor.key(key, is: "userRecordName") {
                stamp.userRecordName = try text(&cursor)
            } else if cursor.key(key, is: "deviceID") {
                stamp.deviceID = try text(&cursor)
            } else {
                try Self.skipUnknownMember(key, &cursor)
            }
        }
        return stamp
    }

    private mutating func zoneID(_ cursor: inout JSONCursor) throws -> ZoneID {
        var zoneName: String?
        var owner = ""
        try cursor.beginObject()
        while let key = try cursor.nextKey() {
            if cursor.key(key, is: "zoneName") {
                zoneName = try text(&cursor)
            } else if cursor.key(key, is: "ownerRecordName") {
                // An owner that is not a string counts as none, as the tree reader has it.
                if cursor.peekByte() == UInt8(ascii: "\"") {
                    owner = try text(&cursor)
                } else {
                    try cursor.skipValue()
                    owner = ""
                }
            } else {
                try Self.skipUnknownMember(key, &cursor)
            }
        }
        guard let zoneName else { throw NotTaken() }
        return ZoneID(zoneName: zoneName, ownerRecordName: owner)
    }

    /// Reads `{"recordName": …}` (a parent or a share), skipping other keys.
    private mutating func recordName(_ cursor: inout JSONCursor) throws -> String {
        var name: String?
        try cursor.beginObject()
        while let key = try cursor.nextKey() {
            if cursor.key(key, is: "recordName") {
                name = try text(&cursor)
            } else {
                try Self.skipUnknownMember(key, &cursor)
            }
        }
        guard let name else { throw NotTaken() }
        return name
    }

    // MARK: - Fields

    private mutating func readFields(
        _ cursor: inout JSONCursor,
        into fields: inout [NameKey: FieldValue],
        encrypted encryptedFields: inout [NameKey: FieldValue]
    ) throws {
        // Gathered first, so each dictionary is made once at its size rather than grown.
        pendingFields.removeAll(keepingCapacity: true)
        var encryptedCount = 0
        try cursor.beginObject()
        while let key = try cursor.nextKey() {
            let name = try cursor.string(of: key)
            let (value, isEncrypted) = try field(&cursor)
            pendingFields.append((name, value, isEncrypted))
            if isEncrypted { encryptedCount += 1 }
        }
        fields = Dictionary(minimumCapacity: pendingFields.count - encryptedCount)
        if encryptedCount > 0 { encryptedFields = Dictionary(minimumCapacity: encryptedCount) }
        for (name, value, isEncrypted) in pendingFields {
            // A name seen twice means the last one wins: the tree reader's business.
            let earlier = isEncrypted ? encryptedFields.updateValue(value, forKey: NameKey(name)) : fields.updateValue(value, forKey: NameKey(name))
            guard earlier == nil else { throw NotTaken() }
        }
        if encryptedCount > 0, fields.keys.contains(where: { encryptedFields[$0] != nil }) { throw NotTaken() }
    }

    /// The fields of the record being read, before they go into its dictionaries.
    private var pendingFields: [(name: String, value: FieldValue, isEncrypted: Bool)] = []

    /// Reads a field value dictionary, `{"value": V, "type": T, "isEncrypted": B}` in any order.
    /// Values of the common scalar types are read here; others, and anything unusual, by the
    /// tree reader from the dictionary's bytes.
    private mutating func field(_ cursor: inout JSONCursor) throws -> (FieldValue, isEncrypted: Bool) {
        _ = cursor.peekByte()
        let start = cursor.index
        var valueStart: Int?
        var type: FieldType?
        var isEncrypted = false
        var takesValue = true
        try cursor.beginObject()
        while let key = try cursor.nextKey() {
            if cursor.key(key, is: "value") {
                _ = cursor.peekByte()
                valueStart = cursor.index
                try cursor.skipValue()
            } else if cursor.key(key, is: "type") {
                let name = try cursor.stringSpan()
                // Its escapes are checked only when the tree reader reads them.
                if name.isEscaped { takesValue = false }
                type = Self.fieldType(name, of: cursor)
            } else if cursor.key(key, is: "isEncrypted") {
                guard let flag = cursor.bool() else { throw NotTaken() }
                isEncrypted = flag
            } else {
                // An escaped key may spell one of the above.
                if key.isEscaped { takesValue = false }
                try cursor.skipValue()
            }
        }
        if takesValue, let valueStart, let type {
            var reader = JSONCursor(cursor.bytes, at: valueStart)
            if let value = try scalar(type, &reader) { return (value, isEncrypted) }
        }
        var reader = JSONCursor(cursor.bytes, at: start)
        guard let field = RecordWireCoding.uncheckedField(try reader.value()) else { throw NotTaken() }
        return field
    }

    /// The type a name spells exactly (Apple's aliases and other spellings are the tree reader's).
    private static func fieldType(_ name: JSONCursor.StringSpan, of cursor: JSONCursor) -> FieldType? {
        if cursor.key(name, is: "STRING") { return .string }
        if cursor.key(name, is: "INT64") { return .int64 }
        if cursor.key(name, is: "TIMESTAMP") { return .timestamp }
        if cursor.key(name, is: "DOUBLE") { return .double }
        // Read by the tree reader.
        return nil
    }

    private mutating func scalar(_ type: FieldType, _ cursor: inout JSONCursor) throws -> FieldValue? {
        switch type {
        case .string:
            guard cursor.peekByte() == UInt8(ascii: "\"") else { return nil }
            return .string(try text(&cursor))
        case .int64: return cursor.integer().map(FieldValue.int64)
        case .timestamp: return cursor.integer().map(FieldValue.timestamp)
        case .double:
            guard let byte = cursor.peekByte(), byte == UInt8(ascii: "-") || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) else {
                return nil
            }
            return try cursor.value().doubleValue.map(FieldValue.double)
        default: return nil
        }
    }

    // MARK: - Strings

    /// Reads a string, reusing the text of a long one read before.
    private mutating func text(_ cursor: inout JSONCursor) throws -> String {
        guard cursor.peekByte() == UInt8(ascii: "\"") else { throw NotTaken() }
        let span = try cursor.stringSpan()
        // Short strings are stored inline and cost no allocation; an escaped one is not its bytes.
        let count = span.end - span.start
        guard count > 15, !span.isEscaped else { return try cursor.string(of: span) }
        let bytes = UnsafeBufferPointer(rebasing: cursor.bytes[span.start..<span.end])
        for slot in sharedBytes.indices where sharedBytes[slot].count == count {
            if sharedBytes[slot].withUnsafeBufferPointer({ ByteRuns.equal($0, bytes) }) { return sharedTexts[slot] }
        }
        let text = try cursor.string(of: span)
        if sharedBytes.count == Self.sharedStringLimit {
            sharedBytes.removeFirst()
            sharedTexts.removeFirst()
        }
        sharedBytes.append(Array(bytes))
        sharedTexts.append(text)
        return text
    }
}
