//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusModel
import Testing

@testable import NimbusSQL

@Suite("saved records cut into INSERT statements")
struct InsertBatchTests {
    private func records(_ names: [String]) -> [Record] {
        names.map { Record(recordType: "Note", recordID: RecordID(recordName: $0, zoneID: ZoneID(zoneName: "Z", ownerRecordName: ""))) }
    }

    @Test("every position once, in order, at most the row limit a statement")
    func limit() {
        let count = SQLZoneTransaction.rowsPerInsert * 2 + 50
        let batches = SQLZoneTransaction.insertBatches(records((0..<count).map { "r\($0)" }))
        #expect(batches == [0..<100, 100..<200, 200..<250])
        #expect(batches.flatMap { Array($0) } == Array(0..<count))
    }

    @Test("a name repeated starts a new statement: an upsert may not touch a row twice")
    func repeatedName() {
        #expect(SQLZoneTransaction.insertBatches(records(["a", "b", "a", "c", "c"])) == [0..<2, 2..<4, 4..<5])
        #expect(SQLZoneTransaction.insertBatches(records(["only"])) == [0..<1])
    }
}
