//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusModel
import Testing

@testable import NimbusEngine

/// `CONTAINS_ANY_TOKENS` and `CONTAINS_ALL_TOKENS`, run by the full-text index of the suite's
/// database (FTS5 on SQLite, a tsvector GIN index on PostgreSQL under the test script).
@Suite("records/query: token search")
struct TokenQueryTests {
    private static let records: [String: [NameKey: FieldValue]] = [
        "a": ["title": .string("Weekend trip to the Café Lumière"), "body": .string("Bring the camera, and sunscreen!")],
        "b": ["title": .string("Camera repair"), "body": .string("The shop on 5th Street, ticket #4471")],
        "c": ["title": .string("Groceries"), "tags": .list(elementType: .string, [.string("weekend"), .string("market")])],
        "d": ["title": .string("Sealed")],
        "e": ["count": .int64(3)],
        // A field whose hex prefix reads as a number to PostgreSQL's parser ("6e616d65"), and
        // words with combining marks, which FTS5's unicode61 tokenizer would split.
        "f": ["name": .string("Café du Nord"), "title": .string("भारत यात्रा")],
    ]

    struct Case: Sendable, CustomTestStringConvertible {
        var field: String
        var comparator: Filter.Comparator
        var text: String
        var expected: Set<String>
        var testDescription: String { "\(comparator.rawValue) \"\(text)\" on \(field)" }
    }

    static let cases: [Case] = [
        // Case and diacritics fold; punctuation separates words.
        Case(field: "title", comparator: .containsAllTokens, text: "cafe LUMIERE", expected: ["a"]),
        Case(field: "title", comparator: .containsAllTokens, text: "café, trip!", expected: ["a"]),
        Case(field: "title", comparator: .containsAllTokens, text: "trip camera", expected: []),
        Case(field: "title", comparator: .containsAnyTokens, text: "trip camera", expected: ["a", "b"]),
        // Whole words only: "cam" is not "camera".
        Case(field: "title", comparator: .containsAnyTokens, text: "cam", expected: []),
        // A word of another field does not match this one.
        Case(field: "title", comparator: .containsAnyTokens, text: "sunscreen", expected: []),
        Case(field: "body", comparator: .containsAllTokens, text: "5th 4471", expected: ["b"]),
        // Each element of a string list is searched.
        Case(field: "tags", comparator: .containsAnyTokens, text: "market", expected: ["c"]),
        // allTokens searches every plain string field; encrypted values are never indexed.
        Case(field: Filter.allTokensField, comparator: .containsAnyTokens, text: "weekend", expected: ["a", "c"]),
        Case(field: Filter.allTokensField, comparator: .containsAllTokens, text: "camera sunscreen weekend", expected: ["a"]),
        Case(field: "nowhere", comparator: .containsAnyTokens, text: "weekend", expected: []),
        Case(field: "name", comparator: .containsAllTokens, text: "cafe NORD", expected: ["f"]),
        Case(field: "title", comparator: .containsAnyTokens, text: "भारत", expected: ["f"]),
        Case(field: "title", comparator: .containsAllTokens, text: "यात्रा भारत", expected: ["f"]),
    ]

    private static func seed(_ f: EngineFixture) async throws {
        try await f.makeZone("Notes", for: f.alice)
        var operations = records.map { name, fields in RecordOperation.note(name, fields) }
        // d also keeps words in an encrypted field, which the index must never see.
        let sealed = operations.firstIndex { $0.recordName == "d" }!
        operations[sealed].fields["secret"] = FieldInput(.string("weekend camera"), isEncrypted: true)
        _ = try await f.modify(operations, zone: "Notes")
    }

    private static func query(_ f: EngineFixture, _ filters: [Filter]) async throws(NimbusError) -> Set<String> {
        try await f.queryNames(filters, zone: "Notes")
    }

    @Test("token comparators on string fields, string lists and allTokens, without case or diacritics")
    func table() async throws {
        try await EngineFixture.with { f in
            try await Self.seed(f)
            for testCase in Self.cases {
                let found = try await Self.query(f, [Filter(testCase.field, testCase.comparator, .string(testCase.text))])
                #expect(found == testCase.expected, "\(testCase.testDescription): \(found.sorted())")
            }
        }
    }

    @Test("subscriptions and rules, which match changes in memory, agree with the index")
    func inMemoryAgrees() async throws {
        try await EngineFixture.with { f in
            try await Self.seed(f)
            var stored: [Record] = []
            for name in Self.records.keys.sorted() {
                if let record = try await f.lookup(name) { stored.append(record) }
            }
            #expect(stored.count == Self.records.count)
            for testCase in Self.cases {
                let filter = Filter(testCase.field, testCase.comparator, .string(testCase.text))
                let matched = Set(stored.filter { FilterEvaluator.matches($0, filter) }.map(\.recordID.recordName))
                #expect(matched == testCase.expected, "\(testCase.testDescription): \(matched.sorted())")
            }
        }
    }

    @Test("the index follows saves and deletes, and combines with other filters")
    func indexFollowsWrites() async throws {
        try await EngineFixture.with { f in
            try await Self.seed(f)
            let camera = Filter("title", .containsAnyTokens, .string("camera"))
            _ = try await f.modify([.note("b", ["title": .string("Lens repair")], kind: .forceUpdate)], zone: "Notes")
            #expect(try await Self.query(f, [camera]).isEmpty, "the old words left the index")
            #expect(try await Self.query(f, [Filter("title", .containsAnyTokens, .string("lens"))]) == ["b"])

            _ = try await f.modify([.init(kind: .delete, recordName: "a")], zone: "Notes")
            #expect(try await Self.query(f, [Filter(Filter.allTokensField, .containsAnyTokens, .string("weekend"))]) == ["c"])

            let both = [Filter("title", .containsAnyTokens, .string("lens groceries")), Filter("title", .beginsWith, .string("G"))]
            #expect(try await Self.query(f, both) == ["c"])
        }
    }

    @Test("token filters need words, on string fields")
    func badFilters() async throws {
        try await EngineFixture.with { f in
            try await Self.seed(f)
            let refused: [(Filter, String)] = [
                (Filter("title", .containsAllTokens, .string(" ,.! ")), "at least one word"),
                (Filter("title", .containsAnyTokens, .int64(4)), "needs a STRING value"),
                (Filter("count", .containsAnyTokens, .string("3")), "searches string fields"),
                (Filter("___recordID", .containsAnyTokens, .string("a")), "is a system field"),
                (Filter("secret", .containsAnyTokens, .string("weekend")), "encrypted"),
            ]
            for (filter, reason) in refused {
                do {
                    let found = try await Self.query(f, [filter])
                    Issue.record("\(filter.comparator.rawValue) on \(filter.fieldName) ran: \(found)")
                } catch let error as NimbusError {
                    #expect(error.code == .badRequest && error.reason.contains(reason), "\(error.reason)")
                }
            }
        }
    }
}
