//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Foundation
import NimbusModel
import Testing

@Suite("reading records straight from bytes")
struct RecordWireDecoderTests {
    static let zone = ZoneID(zoneName: "Default", ownerRecordName: "")
    static let owner = "_0123456789abcdef0123456789abcdef"

    /// Decodes the records of a JSON array one after the other with one decoder, as a response
    /// is read: `nil` for each dictionary the decoder leaves to the tree reader.
    static func decode(_ array: String) throws -> (records: [Record?], untouched: Bool) {
        let bytes = Array(array.utf8)
        return try bytes.withUnsafeBufferPointer { buffer in
            var cursor = JSONCursor(buffer)
            var decoder = RecordWireDecoder()
            var records: [Record?] = []
            var untouched = true
            try cursor.beginArray()
            while try cursor.nextElement() {
                let start = cursor.index
                if let record = decoder.record(at: &cursor, in: zone) {
                    records.append(record)
                } else {
                    untouched = untouched && cursor.index == start
                    try cursor.skipValue()
                    records.append(nil)
                }
            }
            return (records, untouched)
        }
    }

    /// What the tree reader makes of each dictionary of the array.
    static func tree(_ array: String) throws -> [Record] {
        guard case .array(let items) = try JSONParser.parse(array) else { return [] }
        return try items.map { try RecordWireCoding.record($0, in: zone, at: "record") }
    }

    static func serverShaped(_ name: String) -> String {
        """
        {"recordName":"\(name)","recordType":"Note","recordChangeTag":"7","fields":{\
        "title":{"value":"a title","type":"STRING"},"count":{"value":-9223372036854775808,"type":"INT64"},\
        "when":{"value":1795379160671,"type":"TIMESTAMP"},"ratio":{"value":2.5e-3,"type":"DOUBLE"},\
        "whole":{"value":3,"type":"DOUBLE"},"secret":{"value":"hidden","type":"STRING","isEncrypted":true}},\
        "created":{"timestamp":1795379160671,"userRecordName":"\(owner)","deviceID":"1"},\
        "modified":{"timestamp":1795379160672,"userRecordName":"\(owner)","deviceID":"2"},\
        "zoneID":{"zoneName":"Notes","ownerRecordName":"\(owner)","ownerName":"\(owner)"},\
        "parent":{"recordName":"chat"},"share":{"recordName":"s1","zoneID":{"zoneName":"Notes"}}}
        """
    }

    @Test("a record as the server writes it is read without the tree, to the same record")
    func readsServerShape() throws {
        let array = "[\(Self.serverShaped("n1")),\(Self.serverShaped("n2"))]"
        let (records, _) = try Self.decode(array)
        #expect(records.allSatisfy { $0 != nil })
        #expect(records.compactMap { $0 } == (try Self.tree(array)))
        let record = try #require(records.first ?? nil)
        #expect(record.fields["count"] == .int64(.min))
        #expect(record.fields["whole"] == .double(3))
        #expect(record.encryptedFields["secret"] == .string("hidden"))
        #expect(record.recordID.zoneID == ZoneID(zoneName: "Notes", ownerRecordName: Self.owner))
        #expect(record.parentRecordName == "chat" && record.shareRecordName == "s1")
    }

    @Test(
        "what the decoder reads itself, in any order or spelling, equals what the tree reader makes",
        arguments: [
            // Type before value, flags first, whitespace everywhere.
            #"{ "fields" : { "a" : { "isEncrypted" : false , "type" : "INT64" , "value" : 12 } } , "recordName" : "r" }"#,
            // Types read by the tree reader, field by field: lists, references, bytes, locations.
            #"{"recordName":"r","fields":{"l":{"value":["x","y"],"type":"STRING_LIST"},"ref":{"value":{"recordName":"t","action":"NONE"},"type":"REFERENCE"},"b":{"value":"AAE=","type":"BYTES"},"loc":{"value":{"latitude":1.5,"longitude":2},"type":"LOCATION"}}}"#,
            // Aliases, lower case, no type, numbers written as strings or booleans.
            #"{"recordName":"r","fields":{"a":{"value":5,"type":"NUMBER_INT64"},"b":{"value":"s","type":"string"},"c":{"value":4},"d":{"value":"12","type":"INT64"},"e":{"value":true,"type":"INT64"},"f":{"value":3.0,"type":"INT64"},"g":{"value":"1.5","type":"DOUBLE"}}}"#,
            // No zone, no stamps; a stamp without a device; an owner that is not a string.
            #"{"recordName":"r"}"#,
            #"{"recordName":"r","created":{"timestamp":5},"zoneID":{"zoneName":"z","ownerRecordName":7}}"#,
            #"{"recordName":"r","zoneID":{"zoneName":"z","ownerRecordName":"first","ownerRecordName":null}}"#,
            // Escapes in values and in field names; unknown keys inside a field, a stamp, a zone.
            #"{"recordName":"r\u00e9\n","fields":{"n\u0061me":{"value":"\"q\" \ud83d\ude00","type":"STRING","extra":[1,{"x":null}]}},"created":{"timestamp":1,"other":{}},"zoneID":{"zoneName":"z","x":1}}"#,
            // An escaped key inside a field value dictionary: read by the tree reader.
            #"{"recordName":"r","fields":{"a":{"v\u0061lue":"x","type":"STRING","value":"y"}}}"#,
        ]
    )
    func agrees(dictionary: String) throws {
        let (records, _) = try Self.decode("[\(dictionary)]")
        let decoded = try #require(records.first ?? nil)
        #expect(decoded == (try Self.tree("[\(dictionary)]")).first)
    }

    @Test(
        "dictionaries that are not plain records are left to the caller, with the cursor where it was",
        arguments: [
            #"{"recordName":"r","serverErrorCode":"NOT_FOUND","reason":"no"}"#,
            #"{"recordName":"r","recordType":"Note","deleted":true}"#,
            #"{"recordName":"r","fields":{},"fields":{"a":{"value":1,"type":"INT64"}}}"#,
            #"{"recordName":"r","fields":{"a":{"value":1,"type":"INT64"},"a":{"value":"x","type":"STRING","isEncrypted":true}}}"#,
            #"{"recordN\u0061me":"r"}"#,
            #"{"recordName":"r","created":{"timestamp":1,"userRecordN\u0061me":"u"}}"#,
            #"{"recordName":"r","created":{"timestamp":1.5}}"#,
            #"{"recordName":"r","fields":{"a":{"value":1,"type":"INT64","isEncrypted":"yes"}}}"#,
            #"{"recordName":"r","participants":[],"publicPermission":"NONE"}"#,
            #"{"recordType":"Note"}"#,
            #"{"recordName":7}"#,
            #"[1]"#,
        ]
    )
    func leaves(dictionary: String) throws {
        let (records, untouched) = try Self.decode("[\(dictionary)]")
        #expect(records == [nil])
        #expect(untouched)
    }

    @Test("an invalid escape the decoder skips past still fails the record, as the tree reader fails it")
    func invalidEscapes() throws {
        let bytes = Array(#"[{"recordName":"r","fields":{"f":{"type":"\q","type":"STRING","value":"x"}}}]"#.utf8)
        #expect(throws: JSONCursor.Failure.self) { try JSONParser.parse(bytes) }
        let records = try bytes.withUnsafeBufferPointer { buffer in
            var cursor = JSONCursor(buffer)
            var decoder = RecordWireDecoder()
            try cursor.beginArray()
            _ = try cursor.nextElement()
            return decoder.record(at: &cursor, in: Self.zone)
        }
        #expect(records == nil)
    }

    @Test("long strings shared between records keep each record's own text")
    func sharedStrings() throws {
        let names = (0..<6).map { "_user-of-a-long-record-name-\($0)" }
        let array =
            "["
            + names.map {
                #"{"recordName":"r","created":{"userRecordName":"\#($0)"},"modified":{"userRecordName":"\#(names[0])"},"zoneID":{"zoneName":"z","ownerRecordName":"\#($0)"}}"#
            }.joined(separator: ",") + "]"
        let (records, _) = try Self.decode(array)
        #expect(records.map { $0?.created.userRecordName } == names)
        #expect(records.map { $0?.recordID.zoneID.ownerRecordName } == names)
        #expect(records.compactMap { $0 } == (try Self.tree(array)))
    }

    @Test("a zone or stamp dictionary repeated from the record before is the same value, and a changed one is read anew")
    func repeatedDictionaries() throws {
        // Each differs from the one before in one byte, at the start, inside the first eight
        // bytes, at the end, or by a longer number: none of them may be taken for the one before.
        let zones = [
            #"{"zoneName":"Notes","ownerRecordName":"\#(Self.owner)"}"#,
            #"{"zoneName":"Notes","ownerRecordName":"\#(Self.owner)"}"#,
            #"{"zoneName":"Notez","ownerRecordName":"\#(Self.owner)"}"#,
            #"{"zoneName":"Notez","ownerRecordName":"\#(Self.owner.dropLast())x"}"#,
            #"{ "zoneName":"Notez","ownerRecordName":"\#(Self.owner.dropLast())x"}"#,
            #"{"zoneName":"Notes"}"#,
        ]
        let stamps = [
            #"{"timestamp":1,"userRecordName":"\#(Self.owner)","deviceID":"1"}"#,
            #"{"timestamp":1,"userRecordName":"\#(Self.owner)","deviceID":"1"}"#,
            #"{"timestamp":12,"userRecordName":"\#(Self.owner)","deviceID":"1"}"#,
            #"{"timestamp":12,"userRecordName":"\#(Self.owner)","deviceID":"2"}"#,
            #"{"timestamp":12,"userRecordName":"\#(Self.owner)","deviceID":"2"}"#,
            #"{"timestamp":2,"userRecordName":"\#(Self.owner)"}"#,
        ]
        let array =
            "["
            + zip(zones, stamps).enumerated().map { index, pair in
                #"{"recordName":"r\#(index)","created":\#(pair.1),"modified":\#(stamps[(index + 1) % stamps.count]),"zoneID":\#(pair.0)}"#
            }.joined(separator: ",") + "]"
        let (records, _) = try Self.decode(array)
        let tree = try Self.tree(array)
        #expect(records.compactMap { $0 } == tree)
        #expect(records.map { $0?.recordID.zoneID.zoneName } == ["Notes", "Notes", "Notez", "Notez", "Notez", "Notes"])
        #expect(records.map { $0?.recordID.zoneID.ownerRecordName.last } == ["f", "f", "f", "x", "x", nil])
        #expect(records.map { $0?.created.timestamp } == [1, 1, 12, 12, 12, 2])
        #expect(records.prefix(5).map { $0?.created.deviceID } == ["1", "1", "1", "2", "2"])
    }

    @Test("stored fields of every type are read straight from their bytes, to what the tree reader makes of them")
    func storedFields() throws {
        let fields: [NameKey: FieldValue] = [
            "text": .string("quote \" backslash \\ é 🙂 \u{01}"), "long": .string(String(repeating: "x", count: 40)),
            "small": .int64(.min), "big": .int64(.max), "ratio": .double(-0.125), "huge": .double(1e300), "when": .timestamp(0),
            "blob": .bytes(Data([0, 255])), "sealed": .encryptedBytes(Data()),
            "link": .reference(Reference(recordName: "r", zoneID: ZoneID(zoneName: "Z", ownerRecordName: "_o"), action: .validate)),
            "file": .asset(Asset(fileChecksum: "c", size: 3, receipt: "r")),
            "place": .location(Location(latitude: -33.5, longitude: 151, horizontalAccuracy: 5, timestamp: 9)),
            "doubles": .list(elementType: .double, [.double(1.5), .double(2)]), "none": .list(elementType: .reference, []),
        ]
        var writer = JSONWriter()
        FieldValue.write(fields, to: &writer)
        let bytes = writer.bytes
        let read = bytes.withUnsafeBufferPointer { buffer in
            var decoder = RecordWireDecoder()
            return decoder.fields(in: buffer)
        }
        #expect(read == fields)
        #expect(read == (try FieldValue.read(fields: try JSONParser.parse(bytes), at: "fields")))
        #expect(Self.storedFields(#"{}"#) == [:])
    }

    @Test(
        "stored fields this reader leaves to the tree reader give nil",
        arguments: [
            #"{"a":{"value":1,"type":"INT64"},"a":{"value":2,"type":"INT64"}}"#,
            #"{"a":{"value":"x","type":"STRING","isEncrypted":true}}"#,
            #"{"a":{"value":1,"type":"INT64"}} {}"#,
            #"{"a":{"value":1,"type":"INT64"}"#,
            #"[]"#,
        ]
    )
    func storedFieldsLeft(json: String) {
        #expect(Self.storedFields(json) == nil)
    }

    static func storedFields(_ json: String) -> [NameKey: FieldValue]? {
        Array(json.utf8).withUnsafeBufferPointer { buffer in
            var decoder = RecordWireDecoder()
            return decoder.fields(in: buffer)
        }
    }
}
