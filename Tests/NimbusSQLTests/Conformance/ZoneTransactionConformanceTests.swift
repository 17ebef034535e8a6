//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusModel
import NimbusStore
import Testing

@Suite("record store conformance: zone transactions")
struct ZoneTransactionConformanceTests {
    @Test("a transaction sees its zone as it began and its own writes, and returns its body's result", arguments: StoreFactory.all)
    func transactionView(factory: StoreFactory) async throws {
        try await factory.with { f in
            _ = try await f.store.createZone(named: "Z", of: f.tenant())
            try await f.save([f.record("old")])
            let zone = try await f.zone()
            // Checked outside: the body may run on another task than the test's.
            let (seenZone, seenNames) = try await f.store.write(zone: "Z", of: f.tenant()) { transaction in
                _ = try await transaction.save([f.record("new")])
                try await transaction.delete([Tombstone(recordName: "old", recordType: "Note")])
                let seen = try await transaction.records(named: ["new", "old"])
                return (try await transaction.zone(), seen.keys.map(\.string).sorted())
            }
            #expect(seenZone == zone)
            #expect(seenNames == ["new"])
            #expect(await storeErrorKind { try await f.store.write(zone: "Nowhere", of: f.tenant()) { _ in } } == .zoneNotFound)
        }
    }

    @Test(
        "a write to a zone that is not there fails at its first statement, whichever it is, and writes nothing; the default zone's first write makes its row",
        arguments: StoreFactory.all
    )
    func missingZone(factory: StoreFactory) async throws {
        try await factory.with { f in
            let nowhere = f.record("a", in: "Nowhere")
            let starts: [@Sendable (any ZoneTransaction) async throws -> Void] = [
                { _ = try await $0.records(named: ["a"]) },
                { _ = try await $0.save([nowhere]) },
                { try await $0.addFields(["title": FieldSchema(type: .string, isEncrypted: false)], toRecordType: "Stray") },
                { _ = try await $0.shareKinds() },
            ]
            for start in starts {
                let kind = await storeErrorKind {
                    try await f.store.write(zone: "Nowhere", of: f.tenant()) { transaction in
                        try await start(transaction)
                        // Not reached: the zone is checked before the body's first statement.
                        throw DeliberateFailure()
                    }
                }
                #expect(kind == .zoneNotFound)
            }
            #expect(try await f.store.zone(named: "Nowhere", of: f.tenant()) == nil)
            #expect(try await f.store.fields(ofRecordType: "Stray", in: StoreFixture.development).isEmpty)

            // The default zone has no row until its first write, whose record read finds none.
            let defaultZone = ZoneID.defaultZoneName
            let saved = try await f.store.write(zone: defaultZone, of: f.tenant()) { transaction in
                #expect(try await transaction.records(named: ["first"]).isEmpty)
                return try await transaction.save([f.record("first", in: defaultZone)])
            }
            #expect(saved.map(\.recordChangeTag) == ["1"])
            #expect(try await f.store.zone(named: defaultZone, of: f.tenant())?.changeCounter == 1)
        }
    }

    @Test("a transaction whose body throws commits nothing and rethrows the body's error", arguments: StoreFactory.all)
    func atomicity(factory: StoreFactory) async throws {
        try await factory.with { f in
            _ = try await f.store.createZone(named: "Z", of: f.tenant())
            try await f.save([f.record("kept", fields: ["v": .int64(1)])])
            let zone = try await f.zone()
            let feed = try await f.changes()
            let databaseFeed = try await f.store.databaseChanges(of: f.tenant(), after: nil, limit: 10)
            await #expect(throws: DeliberateFailure()) {
                try await f.store.write(zone: "Z", of: f.tenant()) { transaction in
                    _ = try await transaction.save([f.record("doomed"), f.record("kept", fields: ["v": .int64(2)])])
                    try await transaction.delete([Tombstone(recordName: "kept", recordType: "Note")])
                    try await transaction.addFields(["v": FieldSchema(type: .int64, isEncrypted: false)], toRecordType: "Doomed")
                    throw DeliberateFailure()
                }
            }
            let records = try await f.store.records(named: ["doomed", "kept"], inZone: "Z", of: f.tenant())
            #expect(records.keys.map(\.string) == ["kept"])
            #expect(records["kept"]?.fields["v"] == .int64(1))
            #expect(try await f.zone() == zone)
            #expect(try await f.changes(after: feed.position).changes.isEmpty)
            #expect(try await f.store.databaseChanges(of: f.tenant(), after: databaseFeed.position, limit: 10).zones.isEmpty)
            #expect(try await f.store.fields(ofRecordType: "Doomed", in: StoreFixture.development).isEmpty)
        }
    }

    @Test("concurrent writers to one zone all commit, with distinct change tags the feed reports in full", arguments: StoreFactory.all)
    func concurrentWriters(factory: StoreFactory) async throws {
        try await factory.with { f in
            _ = try await f.store.createZone(named: "Z", of: f.tenant())
            let tags = try await withThrowingTaskGroup(of: String.self) { group in
                for index in 0..<20 {
                    group.addTask { try await f.save([f.record("r\(index)")])[0].recordChangeTag }
                }
                return try await group.reduce(into: [String]()) { $0.append($1) }
            }
            #expect(Set(tags).count == 20)
            let feed = try await f.changes()
            #expect(Set(feed.changes.map(\.recordName)) == Set((0..<20).map { "r\($0)" }))
            #expect(!feed.moreComing)
            #expect(feed.position.counter == (try await f.zone().changeCounter))
        }
    }

    @Test("a transaction finds which names are parents of live records", arguments: StoreFactory.all)
    func parents(factory: StoreFactory) async throws {
        try await factory.with { f in
            _ = try await f.store.createZone(named: "Z", of: f.tenant())
            try await f.save([f.record("kid", parent: "p"), f.record("orphan", parent: "q"), f.record("p")])
            try await f.delete(["orphan"])
            let parents = try await f.store.write(zone: "Z", of: f.tenant()) { transaction in
                try await transaction.parentsOfLiveRecords(among: ["p", "q", "r", "kid"])
            }
            #expect(parents == ["p"])
        }
    }

    @Test(
        "parents learnt while reading records answer until the transaction writes, then are asked again",
        arguments: StoreFactory.all
    )
    func parentsLearntWithRecords(factory: StoreFactory) async throws {
        try await factory.with { f in
            _ = try await f.store.createZone(named: "Z", of: f.tenant())
            try await f.save([f.record("kid", parent: "p"), f.record("p")])
            let (before, after, unasked) = try await f.store.write(zone: "Z", of: f.tenant()) { transaction in
                let found = try await transaction.records(named: ["p", "q", "kid"])
                #expect(Set(found.keys) == [NameKey("p"), NameKey("kid")])
                let before = try await transaction.parentsOfLiveRecords(among: ["p", "q"])
                _ = try await transaction.save([f.record("kid2", parent: "q")])
                let after = try await transaction.parentsOfLiveRecords(among: ["p", "q"])
                _ = try await transaction.records(named: ["p"])
                return (before, after, try await transaction.parentsOfLiveRecords(among: ["p", "q", "kid"]))
            }
            #expect(before == ["p"])
            #expect(after == ["p", "q"])
            #expect(unasked == ["p", "q"])
        }
    }

    @Test("a transaction finds the references live records hold to given records", arguments: StoreFactory.all)
    func referrers(factory: StoreFactory) async throws {
        try await factory.with { f in
            _ = try await f.store.createZone(named: "Z", of: f.tenant())
            let toTarget = FieldValue.reference(Reference(recordName: "target", action: .deleteSelf))
            let list = FieldValue.list(
                elementType: .reference,
                [.reference(Reference(recordName: "target", action: .validate)), .reference(Reference(recordName: "t2", action: .deleteSelf))]
            )
            try await f.save([
                f.record("target"), f.record("t2"), f.record("a", fields: ["owner": toTarget]), f.record("b", fields: ["links": list]),
            ])
            // Only what the references constrain is compared: whether a store also reports
            // references without an action is its own affair.
            func edges(_ targets: [String]) async throws -> Set<ReferenceEdge> {
                let found = try await f.store.write(zone: "Z", of: f.tenant()) { try await $0.referrers(to: targets) }
                return Set(found.filter { $0.action != .none })
            }
            #expect(
                try await edges(["target"]) == [
                    ReferenceEdge(sourceName: "a", targetName: "target", action: .deleteSelf),
                    ReferenceEdge(sourceName: "b", targetName: "target", action: .validate),
                ]
            )
            #expect(try await edges(["t2", "nothing"]) == [ReferenceEdge(sourceName: "b", targetName: "t2", action: .deleteSelf)])
            // A deleted record, or one saved without its references, holds none.
            try await f.delete(["a"])
            try await f.save([f.record("b")])
            #expect(try await edges(["target", "t2"]).isEmpty)
        }
    }
}
