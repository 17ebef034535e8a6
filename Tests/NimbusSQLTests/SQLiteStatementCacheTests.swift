//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Foundation
import Testing

@testable import NimbusSQL

@Suite("SQLite's statement cache")
struct SQLiteStatementCacheTests {
    @Test("equal texts are equal keys with equal hashes, whatever their storage")
    func equalTexts() {
        let literal = "SELECT record_name FROM records WHERE container = ? AND zone_name = ?"
        let built = "SELECT record_name FROM records WHERE \(["container", "zone_name"].map { "\($0) = ?" }.joined(separator: " AND "))"
        #expect(literal == built)
        #expect(StatementKey(sql: literal) == StatementKey(sql: built))
        #expect(StatementKey(sql: literal).hashValue == StatementKey(sql: built).hashValue)
    }

    @Test("a change of any one byte, at any position, changes the digest")
    func oneByteChanged() {
        let sql = Array(
            "INSERT INTO records (container, environment, owner, zone_name, record_name) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING"
                .utf8
        )
        let original = sql.withUnsafeBufferPointer { StatementKey.digest(of: $0) }
        for position in sql.indices {
            for change: UInt8 in [0x01, 0x20, 0x80] {
                var changed = sql
                changed[position] ^= change
                #expect(changed.withUnsafeBufferPointer { StatementKey.digest(of: $0) } != original, "byte \(position)")
            }
        }
        #expect(Array(sql.dropLast()).withUnsafeBufferPointer { StatementKey.digest(of: $0) } != original)
    }

    @Test("more distinct statements than the cache holds all give their own answers, again after eviction")
    func eviction() async throws {
        try await withTemporarySQLiteConnection { connection in
            let count = SQLiteConnection.statementCacheLimit + 20
            for round in 0..<2 {
                for number in 0..<count {
                    let rows = try connection.query("SELECT \(number) + ?", [.integer(Int64(round))])
                    #expect(rows.first?.int(0) == Int64(number + round))
                }
            }
        }
    }
}

@Suite("SQLite text binds")
struct SQLiteTextBindTests {
    @Test("empty, non-ASCII and NUL-holding text is bound as itself, never as NULL")
    func text() async throws {
        try await withTemporarySQLiteConnection { connection in
            for text in ["", "a", "héllo wörld", "with\u{0}nul", String(repeating: "long text ", count: 20)] {
                let rows = try connection.query("SELECT ? IS NULL, length(CAST(? AS BLOB)), ?", [.text(text), .text(text), .text(text)])
                #expect(rows.first?.int(0) == 0, "\(text.debugDescription)")
                #expect(rows.first?.int(1) == Int64(text.utf8.count), "\(text.debugDescription)")
                #expect(rows.first?.string(2) == text, "\(text.debugDescription)")
            }
        }
    }
}
