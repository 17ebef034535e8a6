//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusClient
import NimbusModel
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
}
