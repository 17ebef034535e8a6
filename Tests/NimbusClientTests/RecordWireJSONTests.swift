//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Foundation
import NimbusClient
import NimbusModel
import NimbusTesting
import Testing

@Suite("NimbusClient: record dictionaries in the wire shape")
struct RecordWireJSONTests {
    let notes = ZoneID(zoneName: "Notes", ownerRecordName: "")

    @Test("a record dictionary round-trips, encrypted fields, parent and stamps included")
    func roundTrip() throws {
        let text = #"""
            {"recordName":"n1","recordType":"Note","recordChangeTag":"7","parent":{"recordName":"p"},
             "fields":{"title":{"value":"hi","type":"STRING"},"pin":{"value":"1234","type":"STRING","isEncrypted":true},
                       "count":{"value":3,"type":"INT64"}},
             "created":{"timestamp":5,"userRecordName":"_a","deviceID":"d"},"modified":{"timestamp":6,"userRecordName":"_b","deviceID":"d"}}
            """#
        let record = try Record(wireJSON: Array(text.utf8), in: notes)
        #expect(record.recordID == RecordID(recordName: "n1", zoneID: notes))
        #expect(record.fields == ["title": .string("hi"), "count": .int64(3)])
        #expect(record.encryptedFields == ["pin": .string("1234")])
        #expect(record.parentRecordName == "p")
        #expect(record.modified.userRecordName == "_b")
        let again = try Record(wireJSON: record.wireJSON(), in: notes)
        #expect(again == record)
    }

    @Test("a malformed dictionary is badRequest naming the path of the bad value")
    func malformed() throws {
        let cases: [(String, String)] = [
            (#"{"recordName":"n1","fields":{"pin":{"value":"1","isEncrypted":"yes"}}}"#, "isEncrypted"),
            (#"{"recordName":"n1","fields":{"when":{"value":"soon","type":"TIMESTAMP"}}}"#, "when"),
            (#"{"recordName":7}"#, "recordName"),
            (#"{"fields":{}}"#, "recordName"),
            (#"["not a record"]"#, "record"),
        ]
        for (text, path) in cases {
            let error = try #require(throws: NimbusError.self) { try Record(wireJSON: Array(text.utf8), in: notes) }
            #expect(error.code == .badRequest)
            #expect(error.reason.contains(path), "\(error.reason) should name \(path)")
        }
    }

    @Test("records are Codable: a JSON archive of a saved record decodes to an equal record")
    func codable() async throws {
        try await InProcessNimbus.with { nimbus in
            let alice = try await nimbus.addUser(name: "Alice")
            let database = nimbus.container(as: alice).privateCloudDatabase
            try await database.save(zones: [notes])
            let fields: [NameKey: FieldValue] = [
                "title": .string("hi"), "count": .int64(-3), "ratio": .double(0.25), "when": .timestamp(1_700_000_000_000),
                "blob": .bytes(Data([0, 1, 2, 255])), "link": .reference(Reference(recordName: "other", action: .none)),
                "tags": .list(elementType: .string, [.string("a"), .string("b")]),
            ]
            let saved = try await database.save(
                Record(
                    recordType: "Note",
                    recordID: RecordID(recordName: "n1", zoneID: notes),
                    fields: fields,
                    encryptedFields: ["pin": .string("1234")]
                )
            )
            let archived = try JSONEncoder().encode([saved])
            let restored = try JSONDecoder().decode([Record].self, from: archived)
            #expect(restored == [saved])
            #expect(restored.first?.fields["blob"] == .bytes(Data([0, 1, 2, 255])))
            #expect(restored.first?.encryptedFields["pin"] == .string("1234"))
        }
    }
}
