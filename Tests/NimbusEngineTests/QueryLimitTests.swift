//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusEngine
import NimbusModel
import Testing

/// Queries the server cannot answer well are refused before any SQL: system fields compared
/// with values of the wrong type, and more filters or sort keys than a query needs.
@Suite("records/query: system field types and size limits")
struct QueryLimitTests {
    private func seed(_ f: EngineFixture) async throws {
        try await f.makeZone("Notes", for: f.alice)
        _ = try await f.modify([.note("n1", ["rank": .int64(1)]), .note("n2", ["rank": .int64(2)])])
    }

    @Test(
        "a system field compared with a value of the wrong type is a BAD_REQUEST on every store",
        arguments: [
            Filter("___createTime", .greaterThan, .string("abc")), Filter("___modTime", .equals, .reference(Reference(recordName: "x"))),
            Filter("___createdBy", .equals, .int64(5)), Filter("___recordID", .lessThan, .double(1.5)),
            Filter("___modTime", .in, .list(elementType: .string, [.string("a")])), Filter("parent", .equals, .string("n1")),
        ]
    )
    func wrongSystemFieldTypes(filter: Filter) async throws {
        try await EngineFixture.with { f in
            try await seed(f)
            let error = await #expect(throws: NimbusError.self) { _ = try await f.queryNames([filter], zone: "Notes") }
            #expect(error?.code == .badRequest, "\(String(describing: error))")
        }
    }

    @Test("system fields compare with values of their type: times, and names as references or strings")
    func systemFieldsOfTheRightType() async throws {
        try await EngineFixture.with { f in
            try await seed(f)
            let now = try #require(try await f.lookup("n1")?.created.timestamp)
            #expect(try await f.queryNames([Filter("___createTime", .greaterThanOrEquals, .timestamp(now))], zone: "Notes") == ["n1", "n2"])
            #expect(try await f.queryNames([Filter("___createTime", .greaterThan, .int64(now + 1))], zone: "Notes").isEmpty)
            #expect(try await f.queryNames([Filter("___recordID", .equals, .string("n2"))], zone: "Notes") == ["n2"])
            #expect(try await f.queryNames([Filter("___recordID", .equals, .reference(Reference(recordName: "n1")))], zone: "Notes") == ["n1"])
            #expect(try await f.queryNames([Filter("___createdBy", .equals, .string(f.alice))], zone: "Notes") == ["n1", "n2"])
            let names = FieldValue.list(elementType: .string, [.string("n1"), .string("zz")])
            #expect(try await f.queryNames([Filter("___recordID", .in, names)], zone: "Notes") == ["n1"])
        }
    }

    @Test("more than 200 filters or 20 sort descriptors is LIMIT_EXCEEDED, in queries and query subscriptions")
    func sizeLimits() async throws {
        try await EngineFixture.with { f in
            try await seed(f)
            let many = (0..<201).map { Filter("rank", .notEquals, .int64(Int64($0) + 10)) }
            let error = await #expect(throws: NimbusError.self) { _ = try await f.queryNames(many, zone: "Notes") }
            #expect(error?.code == .limitExceeded)
            #expect(try await f.queryNames(Array(many.prefix(200)), zone: "Notes") == ["n1", "n2"])

            let sorts = (0..<21).map { _ in SortDescriptor("rank", ascending: true) }
            let sorted = await #expect(throws: NimbusError.self) {
                _ = try await f.database.queryRecords(
                    Query(recordType: "Note", sortDescriptors: sorts),
                    inZone: ZoneID(zoneName: "Notes", ownerRecordName: ""),
                    resultsLimit: nil,
                    continuationMarker: nil,
                    access: f.access(f.alice)
                )
            }
            #expect(sorted?.code == .limitExceeded)

            let subscription = Subscription(
                subscriptionID: "many",
                kind: .query(Query(recordType: "Note", filters: many), zoneID: nil, firesOn: [.create], firesOnce: false)
            )
            let saved = try await f.database.modifySubscriptions([.create(subscription)], access: f.access(f.alice))
            guard case .failed(_, let refusal)? = saved.first else {
                Issue.record("a subscription of 201 filters was saved: \(saved)")
                return
            }
            #expect(refusal.code == .limitExceeded)
        }
    }
}
