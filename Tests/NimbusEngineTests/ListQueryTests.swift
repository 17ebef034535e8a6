//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusEngine
import NimbusModel
import Testing

/// The list comparators of `records/query` on every list type they apply to, run in SQL on
/// the suite's database (SQLite, or PostgreSQL under the test script).
@Suite("records/query: list comparators")
struct ListQueryTests {
    private static func ref(_ name: String) -> FieldValue { .reference(Reference(recordName: name)) }
    private static func strings(_ values: String...) -> FieldValue { .list(elementType: .string, values.map(FieldValue.string)) }
    private static func ints(_ values: Int64...) -> FieldValue { .list(elementType: .int64, values.map(FieldValue.int64)) }
    private static func refs(_ names: String...) -> FieldValue { .list(elementType: .reference, names.map(ref)) }
    private static func times(_ values: Int64...) -> FieldValue { .list(elementType: .timestamp, values.map(FieldValue.timestamp)) }

    /// a, b and c have every list (c's are empty); d has none of them.
    private static let records: [String: [NameKey: FieldValue]] = [
        "a": ["tags": strings("swift", "server"), "ranks": ints(1, 2, 3), "relatedRecords": refs("m1", "m2"), "seen": times(1_000)],
        "b": ["tags": strings("swiftui"), "ranks": ints(3), "relatedRecords": refs("m2"), "seen": times(2_000, 3_000)],
        "c": ["tags": strings(), "ranks": ints(), "relatedRecords": refs(), "seen": times()],
        "d": ["title": .string("no lists")],
    ]

    struct Case: Sendable, CustomTestStringConvertible {
        var field: String
        var comparator: Filter.Comparator
        var value: FieldValue
        var expected: Set<String>
        var testDescription: String { "\(comparator.rawValue) on \(field)" }
    }

    static let cases: [Case] = [
        Case(field: "tags", comparator: .listContains, value: .string("swift"), expected: ["a"]),
        Case(field: "tags", comparator: .notListContains, value: .string("swift"), expected: ["b", "c"]),
        Case(field: "tags", comparator: .listMemberBeginsWith, value: .string("swift"), expected: ["a", "b"]),
        Case(field: "tags", comparator: .notListMemberBeginsWith, value: .string("swift"), expected: ["c"]),
        Case(field: "tags", comparator: .listContainsAny, value: strings("server", "swiftui", "rust"), expected: ["a", "b"]),
        Case(field: "tags", comparator: .notListContainsAny, value: strings("server", "swiftui"), expected: ["c"]),
        Case(field: "tags", comparator: .listContainsAll, value: strings("server", "swift"), expected: ["a"]),
        Case(field: "tags", comparator: .notListContainsAll, value: strings("server", "swift"), expected: ["b", "c"]),
        Case(field: "ranks", comparator: .listContains, value: .int64(3), expected: ["a", "b"]),
        Case(field: "ranks", comparator: .listContainsAll, value: ints(1, 3), expected: ["a"]),
        Case(field: "ranks", comparator: .listContainsAny, value: ints(2, 7), expected: ["a"]),
        Case(field: "relatedRecords", comparator: .listContains, value: ref("m2"), expected: ["a", "b"]),
        Case(field: "relatedRecords", comparator: .listContainsAny, value: refs("m1", "m9"), expected: ["a"]),
        Case(field: "relatedRecords", comparator: .notListContains, value: ref("m1"), expected: ["b", "c"]),
        Case(field: "seen", comparator: .listContains, value: .timestamp(3_000), expected: ["b"]),
        Case(field: "seen", comparator: .listContainsAny, value: times(1_000, 3_000), expected: ["a", "b"]),
        // A field no record has matches nothing, negated or not.
        Case(field: "nowhere", comparator: .listContains, value: .string("x"), expected: []),
        Case(field: "nowhere", comparator: .notListContains, value: .string("x"), expected: []),
    ]

    private static func seed(_ f: EngineFixture) async throws {
        try await f.makeZone("Chats", for: f.alice)
        _ = try await f.modify(records.map { name, fields in .note(name, fields) }, zone: "Chats")
    }

    private static func query(_ f: EngineFixture, _ filter: Filter) async throws(NimbusError) -> Set<String> {
        try await f.queryNames([filter], zone: "Chats")
    }

    @Test("every list comparator on string, integer, reference and timestamp lists")
    func table() async throws {
        try await EngineFixture.with { f in
            try await Self.seed(f)
            for testCase in Self.cases {
                let found = try await Self.query(f, Filter(testCase.field, testCase.comparator, testCase.value))
                #expect(found == testCase.expected, "\(testCase.testDescription): \(found.sorted())")
            }
        }
    }

    @Test("reactions whose relatedRecords contain any of thousands of message references")
    func thousandsOfReferences() async throws {
        try await EngineFixture.with { f in
            try await Self.seed(f)
            let wanted = (0..<5_000).map { "message-\($0)" } + ["m2"]
            let found = try await Self.query(f, Filter("relatedRecords", .listContainsAny, .list(elementType: .reference, wanted.map(Self.ref))))
            #expect(found == ["a", "b"])
        }
    }

    @Test("list comparators refuse scalar fields, scalar comparators refuse lists, and values must fit")
    func badFilters() async throws {
        try await EngineFixture.with { f in
            try await Self.seed(f)
            let refused: [(Filter, String)] = [
                (Filter("title", .listContains, .string("x")), "needs a list field"),
                (Filter("tags", .equals, .string("swift")), "filter it with a LIST_ comparator"),
                (Filter("tags", .listContainsAny, .string("swift")), "needs a list value"),
                (Filter("tags", .listContains, Self.strings("swift")), "needs a single value"),
                (Filter("ranks", .listMemberBeginsWith, .int64(1)), "needs a STRING value"),
                (Filter("ranks", .listContains, .string("three")), "INT64_LIST"),
                (Filter("___recordID", .listContains, .string("a")), "is not a list"),
            ]
            for (filter, reason) in refused {
                do {
                    let found = try await Self.query(f, filter)
                    Issue.record("\(filter.comparator.rawValue) on \(filter.fieldName) ran: \(found)")
                } catch let error as NimbusError {
                    #expect(error.code == .badRequest && error.reason.contains(reason), "\(error.reason)")
                }
            }
        }
    }
}
