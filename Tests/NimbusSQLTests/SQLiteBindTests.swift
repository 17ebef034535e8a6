//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusStore
import Testing

@testable import NimbusSQL

/// Text and blobs reach SQLite from one buffer per connection, read in place (`BindBuffer`).
@Suite("SQLite: values bound in place")
struct SQLiteBindTests {
    /// Larger than the buffer keeps between statements, so it grows and is given back.
    static let large = String(repeating: "0123456789abcdef", count: BindBuffer.keptCapacity / 8)

    @Test("text and blobs come back byte for byte, empty, with NULs, non-ASCII and larger than the buffer keeps")
    func valuesRoundTrip() async throws {
        try await withTemporarySQLiteConnection { connection in
            let values: [SQLValue] = [
                .text(""), .text("a\u{0}b"), .integer(7), .text("ünï©ødé 🎈"), .blob([0, 255, 1, 0]), .blob([]),
                .null, .text(Self.large), .real(1.5), .text("last"),
            ]
            let select = "SELECT " + values.map { _ in "?" }.joined(separator: ", ")
            let row = try #require(try connection.query(select, values).first)
            #expect(row.values == values)
            // After the large statement, the same statement with small values, then others.
            let small: [SQLValue] = [.text("x"), .text(""), .integer(1), .text("y"), .blob([9]), .blob([]), .null, .text("z"), .real(0), .text("")]
            #expect(try connection.query(select, small).first?.values == small)
            #expect(try connection.query("SELECT ?, ?", [.text("one"), .text("two")]).first?.values == [.text("one"), .text("two")])
        }
    }

    @Test("a stored value does not change when the buffer it was bound from is written again")
    func storedValuesAreCopies() async throws {
        try await withTemporarySQLiteConnection { connection in
            try connection.executeScript("CREATE TABLE kept (name TEXT PRIMARY KEY, body TEXT, bytes BLOB)")
            _ = try connection.query("INSERT INTO kept VALUES (?, ?, ?)", [.text("big"), .text(Self.large), .blob([1, 2, 3])])
            _ = try connection.query("INSERT INTO kept VALUES (?, ?, ?)", [.text("small"), .text("short"), .blob([4])])
            let rows = try connection.query("SELECT name, body, bytes FROM kept ORDER BY name", [])
            #expect(rows.map(\.values) == [[.text("big"), .text(Self.large), .blob([1, 2, 3])], [.text("small"), .text("short"), .blob([4])]])
        }
    }

    @Test("a statement given more values than it has parameters fails, and leaves nothing bound behind")
    func tooManyValues() async throws {
        try await withTemporarySQLiteConnection { connection in
            #expect(throws: StoreError.self) { try connection.query("SELECT ?", [.text("bound"), .text("beyond")]) }
            let next = try connection.query("SELECT ?, ?", [.text("next")])
            #expect(next.first?.values == [.text("next"), .null])
            let again = try connection.query("SELECT ?", [.text("again")])
            #expect(again.first?.values == [.text("again")])
        }
    }

    @Test("a parameter left unbound is NULL, never the value an earlier run bound")
    func unboundIsNull() async throws {
        try await withTemporarySQLiteConnection { connection in
            let select = "SELECT ?, ?"
            let both = try connection.query(select, [.text("first"), .text("second")])
            #expect(both.first?.values == [.text("first"), .text("second")])
            let one = try connection.query(select, [.text("again")])
            #expect(one.first?.values == [.text("again"), .null])
        }
    }
}
