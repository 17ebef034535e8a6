//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusEngine
import NimbusModel
import Testing

/// Two server instances on one database, as behind a load balancer: what one writes the other
/// reads, and racing writes through both are decided exactly as racing writes through one.
@Suite("two instances on one database")
struct TwoInstanceTests {
    @Test("updates racing through both instances with the same change tag: exactly one wins, the other is SERVER_RECORD_CHANGED")
    func racingUpdates() async throws {
        try await EngineFixture.with { f in
            try await f.makeZone("Notes", for: f.alice)
            var current = try await f.save(.note("n1", ["title": .string("start")]))
            try await f.withSecondInstance { other in
                var second = f
                second.database = other
                for round in 0..<20 {
                    let tag = current.recordChangeTag
                    async let first = f.modify([.note("n1", ["title": .string("A\(round)")], kind: .update, tag: tag)])
                    async let secondResults = second.modify([.note("n1", ["title": .string("B\(round)")], kind: .update, tag: tag)])
                    let outcomes = [try await first, try await secondResults].compactMap(\.first)
                    let winners: [Record] = outcomes.compactMap { if case .saved(let record) = $0 { record } else { nil } }
                    let losers = outcomes.compactMap(\.error)
                    try #require(winners.count == 1 && losers.count == 1, "round \(round): \(outcomes)")
                    #expect(losers[0].code == .serverRecordChanged)
                    #expect(losers[0].serverRecord?.recordChangeTag == winners[0].recordChangeTag)
                    // Either instance reads the winner.
                    #expect(try await second.lookup("n1")?.fields["title"] == winners[0].fields["title"])
                    current = winners[0]
                }
            }
        }
    }

    @Test("creates of one record name racing through both instances: one saves, the other is told it exists")
    func racingCreates() async throws {
        try await EngineFixture.with { f in
            try await f.makeZone("Notes", for: f.alice)
            try await f.withSecondInstance { other in
                var second = f
                second.database = other
                for round in 0..<20 {
                    async let first = f.modify([.note("c\(round)", ["by": .string("A")])])
                    async let secondResults = second.modify([.note("c\(round)", ["by": .string("B")])])
                    let outcomes = [try await first, try await secondResults].compactMap(\.first)
                    let winners: [Record] = outcomes.compactMap { if case .saved(let record) = $0 { record } else { nil } }
                    try #require(winners.count == 1, "round \(round): \(outcomes)")
                    #expect(outcomes.compactMap(\.error).map(\.code) == [.alreadyExists])
                    #expect(try await f.lookup("c\(round)")?.fields["by"] == winners[0].fields["by"])
                }
            }
        }
    }

    @Test("what one instance writes, the other reads, queries and syncs at once")
    func writesAreVisibleEverywhere() async throws {
        try await EngineFixture.with { f in
            try await f.makeZone("Notes", for: f.alice)
            try await f.withSecondInstance { other in
                var second = f
                second.database = other
                _ = try await f.save(.note("n1", ["title": .string("from A")]))
                #expect(try await second.lookup("n1")?.fields["title"] == .string("from A"))
                let found = try await other.queryRecords(
                    Query(recordType: "Note", filters: [Filter("title", .equals, .string("from A"))]),
                    inZone: ZoneID(zoneName: "Notes", ownerRecordName: ""),
                    resultsLimit: nil,
                    continuationMarker: nil,
                    access: f.access(f.alice)
                )
                #expect(found.records.map(\.recordID.recordName) == ["n1"])
                // A token from one instance continues on the other.
                let page = try await f.changes(after: nil, limit: 10, zone: "Notes")
                _ = try await second.save(.note("n2", ["title": .string("from B")]))
                let next = try await f.changes(after: page.syncToken, limit: 10, zone: "Notes")
                let names = next.changes.map { change -> String in
                    switch change {
                    case .saved(let record): record.recordID.recordName
                    case .deleted(let tombstone): tombstone.recordName
                    }
                }
                #expect(names == ["n2"])
            }
        }
    }
}
