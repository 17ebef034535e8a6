//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Foundation
import NimbusModel
import Testing

@Suite("field value dictionaries as clients send them")
struct FieldValueCodingTests {
    private func decode(_ json: String) throws -> FieldValue {
        try FieldValue.read(dictionary: try JSONParser.parse(json), at: "field").value
    }

    @Test(
        "untyped values get a type from their JSON shape",
        arguments: [
            (#"{"value": "hello"}"#, FieldValue.string("hello")),
            (#"{"value": 1700000000000}"#, .int64(1_700_000_000_000)),
            (#"{"value": 2.5}"#, .double(2.5)),
            (#"{"value": true}"#, .int64(1)),
            (#"{"value": {"recordName": "r1"}}"#, .reference(Reference(recordName: "r1"))),
            (#"{"value": {"latitude": 1, "longitude": 2}}"#, .location(Location(latitude: 1, longitude: 2))),
            (#"{"value": ["a", "b"]}"#, .list(elementType: .string, [.string("a"), .string("b")])),
        ]
    )
    func inference(json: String, expected: FieldValue) throws {
        #expect(try decode(json) == expected)
    }

    @Test(
        "Apple's aliases and liberal spellings are accepted",
        arguments: [
            (#"{"value": {"fileChecksum": "x"}, "type": "ASSET"}"#, FieldValue.asset(Asset(fileChecksum: "x"))),
            (#"{"value": 5, "type": "NUMBER_INT64"}"#, .int64(5)),
            (#"{"value": "5", "type": "INT64"}"#, .int64(5)),
            (#"{"value": 1.7e12, "type": "TIMESTAMP"}"#, .timestamp(1_700_000_000_000)),
            (#"{"value": [1, 2], "type": "LIST"}"#, .list(elementType: .int64, [.int64(1), .int64(2)])),
            (
                #"{"value": {"recordName": "r", "action": "delete_self"}, "type": "REFERENCE"}"#,
                .reference(Reference(recordName: "r", action: .deleteSelf))
            ),
            (#"{"value": "AAEC", "type": "BYTES"}"#, .bytes(Data([0, 1, 2]))),
        ]
    )
    func aliases(json: String, expected: FieldValue) throws {
        #expect(try decode(json) == expected)
    }

    @Test(
        "malformed values are rejected",
        arguments: [
            #"{"value": "x", "type": "NOPE"}"#,
            #"{"value": "not base64!", "type": "BYTES"}"#,
            #"{"value": 1.5, "type": "INT64"}"#,
            #"{"value": [1, "a"]}"#,
            #"{"value": [[1]]}"#,
            #"{"value": {"recordName": "r", "action": "EXPLODE"}, "type": "REFERENCE"}"#,
            #"{"value": "inf", "type": "DOUBLE"}"#,
            #"{"value": "nan", "type": "DOUBLE"}"#,
            #"{"value": 1e999}"#,
            #"{"value": {"latitude": 1e999, "longitude": 0}}"#,
            #"{"value": 1e19, "type": "INT64"}"#,
        ]
    )
    func rejected(json: String) {
        #expect(throws: (any Error).self) { try decode(json) }
    }

    @Test("writing always includes the type, integers as integers, or as strings on request")
    func writing() throws {
        let value = FieldValue.timestamp(1_700_000_000_000)
        var plain = JSONWriter()
        value.write(to: &plain)
        #expect(String(decoding: plain.bytes, as: UTF8.self) == #"{"value":1700000000000,"type":"TIMESTAMP"}"#)
        var strings = JSONWriter()
        value.write(to: &strings, numbersAsStrings: true)
        #expect(String(decoding: strings.bytes, as: UTF8.self) == #"{"value":"1700000000000","type":"TIMESTAMP"}"#)
    }

    @Test("every field type written and read back is the same value")
    func roundTrip() throws {
        let values: [FieldValue] = [
            .string("quote \" backslash \\ newline \n tab \t control \u{01} é 🙂"), .int64(.min), .int64(.max), .double(-0.125),
            .double(1e300), .timestamp(0), .bytes(Data([0, 255])), .encryptedBytes(Data()),
            .reference(Reference(recordName: "r", zoneID: ZoneID(zoneName: "Z", ownerRecordName: "_o"), action: .validate)),
            .asset(Asset(fileChecksum: "c", size: 3, receipt: "r")),
            .location(Location(latitude: -33.5, longitude: 151, horizontalAccuracy: 5, timestamp: 9)),
            .list(elementType: .double, [.double(1.5), .double(2)]), .list(elementType: .reference, []),
        ]
        for value in values {
            var writer = JSONWriter()
            value.write(to: &writer)
            #expect(try FieldValue.read(dictionary: try JSONParser.parse(writer.bytes), at: "v").value == value)
        }
    }

    @Test("zone IDs accept ownerName and default the zone name")
    func zoneIDs() throws {
        let zone = try ZoneID.read(try JSONParser.parse(#"{"zoneName":"Z","ownerName":"_abc"}"#), at: "zoneID")
        #expect(zone == ZoneID(zoneName: "Z", ownerRecordName: "_abc"))
        let bare = try ZoneID.read(try JSONParser.parse("{}"), at: "zoneID")
        #expect(bare.isDefaultZone && bare.ownerRecordName.isEmpty)
    }

    @Test("environment and database names match case-insensitively")
    func caseInsensitiveNames() {
        #expect(Environment(parsing: "DEVELOPMENT") == .development)
        #expect(DatabaseScope(parsing: "Private") == .private)
        #expect(Environment(parsing: "staging") == nil)
    }
}
