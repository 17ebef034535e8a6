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
        try JSONDecoder().decode(FieldValue.self, from: Data(json.utf8))
    }

    @Test("untyped values get a type from their JSON shape", arguments: [
        (#"{"value": "hello"}"#, FieldValue.string("hello")),
        (#"{"value": 1700000000000}"#, .int64(1_700_000_000_000)),
        (#"{"value": 2.5}"#, .double(2.5)),
        (#"{"value": true}"#, .int64(1)),
        (#"{"value": {"recordName": "r1"}}"#, .reference(Reference(recordName: "r1"))),
        (#"{"value": {"latitude": 1, "longitude": 2}}"#, .location(Location(latitude: 1, longitude: 2))),
        (#"{"value": ["a", "b"]}"#, .list(elementType: .string, [.string("a"), .string("b")])),
    ])
    func inference(json: String, expected: FieldValue) throws {
        #expect(try decode(json) == expected)
    }

    @Test("Apple's aliases and liberal spellings are accepted", arguments: [
        (#"{"value": {"fileChecksum": "x"}, "type": "ASSET"}"#, FieldValue.asset(Asset(fileChecksum: "x"))),
        (#"{"value": 5, "type": "NUMBER_INT64"}"#, .int64(5)),
        (#"{"value": "5", "type": "INT64"}"#, .int64(5)),
        (#"{"value": 1.7e12, "type": "TIMESTAMP"}"#, .timestamp(1_700_000_000_000)),
        (#"{"value": [1, 2], "type": "LIST"}"#, .list(elementType: .int64, [.int64(1), .int64(2)])),
        (#"{"value": {"recordName": "r", "action": "delete_self"}, "type": "REFERENCE"}"#, .reference(Reference(recordName: "r", action: .deleteSelf))),
        (#"{"value": "AAEC", "type": "BYTES"}"#, .bytes(Data([0, 1, 2]))),
    ])
    func aliases(json: String, expected: FieldValue) throws {
        #expect(try decode(json) == expected)
    }

    @Test("malformed values are rejected", arguments: [
        #"{"value": "x", "type": "NOPE"}"#,
        #"{"value": "not base64!", "type": "BYTES"}"#,
        #"{"value": 1.5, "type": "INT64"}"#,
        #"{"value": [1, "a"]}"#,
        #"{"value": [[1]]}"#,
        #"{"value": {"recordName": "r", "action": "EXPLODE"}, "type": "REFERENCE"}"#,
    ])
    func rejected(json: String) {
        #expect(throws: DecodingError.self) { try decode(json) }
    }

    @Test("encoding always writes the type, integers as integers, or as strings on request")
    func encoding() throws {
        let value = FieldValue.timestamp(1_700_000_000_000)
        let plain = String(decoding: try JSONEncoder().encode(value), as: UTF8.self)
        #expect(plain.contains(#""value":1700000000000"#) && plain.contains(#""type":"TIMESTAMP""#))
        let encoder = JSONEncoder()
        encoder.userInfo[FieldValue.numbersAsStringsKey] = true
        let strings = String(decoding: try encoder.encode(value), as: UTF8.self)
        #expect(strings.contains(#""value":"1700000000000""#))
    }

    @Test("zone IDs accept ownerName and default the zone name")
    func zoneIDs() throws {
        let zone = try JSONDecoder().decode(ZoneID.self, from: Data(#"{"zoneName":"Z","ownerName":"_abc"}"#.utf8))
        #expect(zone == ZoneID(zoneName: "Z", ownerRecordName: "_abc"))
        let bare = try JSONDecoder().decode(ZoneID.self, from: Data("{}".utf8))
        #expect(bare.isDefaultZone && bare.ownerRecordName.isEmpty)
    }

    @Test("environment and database names match case-insensitively")
    func caseInsensitiveNames() {
        #expect(Environment(parsing: "DEVELOPMENT") == .development)
        #expect(DatabaseScope(parsing: "Private") == .private)
        #expect(Environment(parsing: "staging") == nil)
    }
}
