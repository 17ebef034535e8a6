//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusModel
import Testing

@testable import NimbusEngine

/// `parent` in a filter: the record's parent reference, with no helper field.
@Suite("records/query: filtering on parent")
struct ParentQueryTests {
    private let zone = ZoneID(zoneName: "Chats", ownerRecordName: "")

    /// Chats c1 and c2, messages m1 and m2 in c1, m3 in c2, and m4 with no parent.
    private func seed(_ f: EngineFixture) async throws {
        try await f.makeZone("Chats", for: f.alice)
        var operations: [RecordOperation] = ["c1", "c2"].map {
            RecordOperation(kind: .create, recordName: $0, recordType: "Chat", fields: [:])
        }
        for (message, chat) in [("m1", "c1"), ("m2", "c1"), ("m3", "c2"), ("m4", nil)] {
            operations.append(
                RecordOperation(
                    kind: .create,
                    recordName: message,
                    recordType: "Message",
                    fields: ["text": FieldInput(.string(message))],
                    parent: chat.map { .set($0) } ?? .unchanged
                )
            )
        }
        _ = try await f.modify(operations, zone: "Chats")
    }

    private func names(_ f: EngineFixture, _ filters: [Filter], type: String = "Message") async throws(NimbusError) -> [String] {
        let result = try await f.database.queryRecords(
            Query(recordType: type, filters: filters, sortDescriptors: [SortDescriptor("___recordID")]),
            inZone: zone,
            resultsLimit: 50,
            continuationMarker: nil,
            access: f.access(f.alice)
        )
        return result.records.map(\.recordID.recordName)
    }

    private static func ref(_ name: String) -> FieldValue { .reference(Reference(recordName: name)) }

    @Test("EQUALS, IN and their negations on parent match the records' parents")
    func comparators() async throws {
        try await EngineFixture.with { f in
            try await seed(f)
            #expect(try await names(f, [Filter("parent", .equals, Self.ref("c1"))]) == ["m1", "m2"])
            #expect(try await names(f, [Filter("parent", .in, .list(elementType: .reference, [Self.ref("c2"), Self.ref("nope")]))]) == ["m3"])
            #expect(try await names(f, [Filter("parent", .notEquals, Self.ref("c1"))]) == ["m3"], "a record without a parent matches no filter on it")
            #expect(try await names(f, [Filter("parent", .equals, Self.ref("c1")), Filter("text", .equals, .string("m2"))]) == ["m2"])
        }
    }

    @Test("a sort by parent keeps records without one, last")
    func sortByParent() async throws {
        try await EngineFixture.with { f in
            try await seed(f)
            let result = try await f.database.queryRecords(
                Query(recordType: "Message", sortDescriptors: [SortDescriptor("parent", ascending: false)]),
                inZone: zone,
                resultsLimit: 50,
                continuationMarker: nil,
                access: f.access(f.alice)
            )
            #expect(result.records.map(\.recordID.recordName) == ["m3", "m1", "m2", "m4"])
        }
    }

    @Test("a parent filter needs a reference; a type with a field named parent keeps its field")
    func valuesAndFieldNames() async throws {
        try await EngineFixture.with { f in
            try await seed(f)
            let error = await #expect(throws: NimbusError.self) { _ = try await names(f, [Filter("parent", .equals, .string("c1"))]) }
            #expect(error?.code == .badRequest)
            #expect(error?.reason.contains("REFERENCE") == true, "\(String(describing: error?.reason))")
            _ = try await f.save(
                RecordOperation(kind: .create, recordName: "t1", recordType: "Tree", fields: ["parent": FieldInput(.string("oak"))]),
                zone: "Chats"
            )
            #expect(try await names(f, [Filter("parent", .equals, .string("oak"))], type: "Tree") == ["t1"])
        }
    }

    @Test("subscriptions and rules match parent in memory the same way")
    func inMemory() {
        var child = Record(recordType: "Message", recordID: RecordID(recordName: "m1", zoneID: zone))
        child.parentRecordName = "c1"
        #expect(FilterEvaluator.matches(child, Filter("parent", .equals, Self.ref("c1"))))
        #expect(!FilterEvaluator.matches(child, Filter("parent", .equals, Self.ref("c2"))))
        #expect(FilterEvaluator.matches(child, Filter("parent", .in, .list(elementType: .reference, [Self.ref("c2"), Self.ref("c1")]))))
        let orphan = Record(recordType: "Message", recordID: RecordID(recordName: "m4", zoneID: zone))
        #expect(!FilterEvaluator.matches(orphan, Filter("parent", .notEquals, Self.ref("c1"))))
        var tree = Record(recordType: "Tree", recordID: RecordID(recordName: "t1", zoneID: zone), fields: ["parent": .string("oak")])
        tree.parentRecordName = "c1"
        #expect(FilterEvaluator.matches(tree, Filter("parent", .equals, .string("oak"))), "a field named parent keeps its meaning")
    }
}
