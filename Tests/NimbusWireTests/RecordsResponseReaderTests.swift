//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusModel
import NimbusWire
import Testing

@Suite("reading a response's records array")
struct RecordsResponseTests {
    private let zone = ZoneID(zoneName: "Z", ownerRecordName: "_owner")

    private func response(_ text: String) throws -> RecordsResponseReader {
        try RecordsResponseReader(Array(text.utf8), in: zone, expectedCount: 4)
    }

    @Test("records and JSON items keep their positions; records move out whole")
    func mixedItems() throws {
        var response = try response(
            """
            {"records":[
              {"recordName":"a","recordType":"Note","recordChangeTag":"1","fields":{"title":{"value":"A","type":"STRING"}}},
              {"recordName":"b","serverErrorCode":"CONFLICT","reason":"stale"},
              {"recordName":"c","recordType":"Note","recordChangeTag":"2","fields":{},"parent":{"recordName":"a"}},
              {"recordName":"d","deleted":true}
            ],"syncToken":"t1"}
            """
        )
        #expect(try response.requireCount() == 4)
        #expect(response.json(at: 0) == nil)
        #expect(response.json(at: 2) == nil)
        guard case .object(let error)? = response.json(at: 1), case .object(let tombstone)? = response.json(at: 3) else {
            Issue.record("items 1 and 3 should be kept as JSON")
            return
        }
        #expect(error["serverErrorCode"] == .string("CONFLICT"))
        #expect(tombstone["deleted"] == .bool(true))
        let first = response.takeRecord(at: 0)
        #expect(first.recordID == RecordID(recordName: "a", zoneID: zone))
        #expect(first.fields["title"] == .string("A"))
        #expect(first.recordChangeTag == "1")
        let third = response.takeRecord(at: 2)
        #expect(third.recordID.recordName == "c")
        #expect(third.parentRecordName == "a")
        #expect(response.members["syncToken"] == .string("t1"))
    }

    @Test("a repeated records member counts as its last value, as in a JSON tree")
    func repeatedMember() throws {
        var response = try response(
            #"{"records":[{"recordName":"old","recordType":"Note"}],"records":[{"recordName":"x"},{"recordName":"new","recordType":"Note"}]}"#
        )
        #expect(try response.requireCount() == 2)
        #expect(response.json(at: 0) == nil)
        #expect(response.takeRecord(at: 1).recordID.recordName == "new")
        #expect(try self.response(#"{"records":[{"recordName":"a","recordType":"Note"}],"records":null}"#).count == nil)
    }

    @Test("a response without a records array says so")
    func missingArray() throws {
        let response = try response(#"{"syncToken":"t"}"#)
        #expect(throws: NimbusError.self) { try response.requireCount() }
        #expect(throws: NimbusError.self) { try self.response(#"{"records":["#) }
    }
}
