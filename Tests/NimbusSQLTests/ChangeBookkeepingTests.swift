//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Foundation
import NimbusModel
import NimbusStore
import NimbusTestSupport
import Testing

@testable import NimbusSQL

@Suite("change bookkeeping in the SQL store")
struct ChangeBookkeepingTests {
    private static let tenant = Tenant(container: "c", environment: .development, owner: "_owner")

    private static func withStore(_ body: (SQLStore, TestDatabase) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nimbus-sql-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = TestDatabase(directory: directory, name: "store.sqlite")
        let store = try await database.open(cipher: FieldCipher(keyBytes: Array(repeating: 3, count: 32))!)
        try await body(store, database)
        await store.close()
    }

    private static func record(_ name: String, zone: String = "Z") -> Record {
        let stamp = ChangeStamp(timestamp: 1, userRecordName: "_owner")
        return Record(
            recordID: RecordID(recordName: name, zoneID: ZoneID(zoneName: zone, ownerRecordName: "_owner")),
            recordType: "Note",
            created: stamp,
            modified: stamp
        )
    }

    @Test("every write bumps the zone counter in its transaction and stamps the rows it changes")
    func countersGrow() async throws {
        try await Self.withStore { store, _ in
            let created = try await store.createZone(named: "Z", of: Self.tenant)
            var last = created.changeCounter
            for round in 0..<5 {
                let saved = try await store.write(zone: "Z", of: Self.tenant) { transaction in
                    try await transaction.save([Self.record("a\(round)"), Self.record("b\(round)")])
                }
                let zone = try #require(try await store.zone(named: "Z", of: Self.tenant))
                #expect(zone.changeCounter == last + 2)
                #expect(saved.map(\.recordChangeTag) == [String(last + 1, radix: 36), String(last + 2, radix: 36)])
                last = zone.changeCounter
            }
        }
    }

    @Test("a write that takes counters after one its zone is not at fails, and moves no counter")
    func countersFromAnotherBase() async throws {
        try await Self.expectCountersRefused { _, zone in
            // The write must not go on from a counter the zone is not at (PostgreSQL sends this
            // statement unawaited: it must fail by itself).
            zone.changeCounter + 5
        }
    }

    @Test("a write that takes counters after its zone's row is gone fails, and writes nothing")
    func countersOfAVanishedZone() async throws {
        try await Self.expectCountersRefused { sql, zone in
            try await sql.connection.base.execute("DELETE FROM zones WHERE zone_name = 'Z'")
            // An UPDATE that finds no row succeeds: the counters' statement must notice.
            return zone.changeCounter
        }
    }

    /// Takes one counter after the base `prepare` returns, in a write to a new zone Z: the write
    /// must fail and roll back, leaving the zone's counter where it was; a save after it takes
    /// the next.
    private static func expectCountersRefused(
        _ prepare: @escaping @Sendable (SQLZoneTransaction, Zone) async throws -> Int64
    ) async throws {
        try await withStore { store, _ in
            let created = try await store.createZone(named: "Z", of: tenant)
            await #expect(throws: StoreError.self) {
                try await store.write(zone: "Z", of: tenant) { transaction in
                    let sql = try #require(transaction as? SQLZoneTransaction)
                    let base = try await prepare(sql, try await sql.zone())
                    try await sql.takeCounters(1, after: base, alongside: [])
                }
            }
            #expect(try await store.zone(named: "Z", of: tenant)?.changeCounter == created.changeCounter)
            _ = try await store.write(zone: "Z", of: tenant) { try await $0.save([record("after")]) }
            #expect(try await store.zone(named: "Z", of: tenant)?.changeCounter == created.changeCounter + 1)
        }
    }

    @Test("a save of more records than one INSERT holds stamps every row with the counter its change tag names")
    func countersAcrossStatements() async throws {
        try await Self.withStore { store, database in
            let created = try await store.createZone(named: "Z", of: Self.tenant)
            let names = (0..<250).map { "r" + String(1000 + $0) }
            let saved = try await store.write(zone: "Z", of: Self.tenant) { transaction in
                try await transaction.save(names.map { Self.record($0) })
            }
            let expected = names.indices.map { String(created.changeCounter + 1 + Int64($0), radix: 36) }
            #expect(saved.map(\.recordChangeTag) == expected)
            let rows = try await database.inspect(
                "SELECT record_name || ':' || change_counter || ':' || change_tag FROM records WHERE zone_name = 'Z' ORDER BY record_name"
            )
            let lines = rows.split(separator: "\n").map(String.init)
            #expect(lines.count == names.count)
            for (index, line) in lines.enumerated() where index < names.count {
                let counter = created.changeCounter + 1 + Int64(index)
                #expect(line == "\(names[index]):\(counter):\(String(counter, radix: 36))")
            }
        }
    }

    @Test("a failed transaction leaves neither rows nor counter behind")
    func rollback() async throws {
        try await Self.withStore { store, _ in
            _ = try await store.createZone(named: "Z", of: Self.tenant)
            let before = try #require(try await store.zone(named: "Z", of: Self.tenant)).changeCounter
            struct Boom: Error {}
            await #expect(throws: Boom.self) {
                try await store.write(zone: "Z", of: Self.tenant) { transaction in
                    _ = try await transaction.save([Self.record("doomed")])
                    throw Boom()
                }
            }
            #expect(try await store.records(named: ["doomed"], inZone: "Z", of: Self.tenant).isEmpty)
            #expect(try #require(try await store.zone(named: "Z", of: Self.tenant)).changeCounter == before)
        }
    }

    @Test("deletes leave tombstones with the record type and a new counter value")
    func tombstones() async throws {
        try await Self.withStore { store, database in
            _ = try await store.createZone(named: "Z", of: Self.tenant)
            _ = try await store.write(zone: "Z", of: Self.tenant) { try await $0.save([Self.record("gone")]) }
            let before = try #require(try await store.zone(named: "Z", of: Self.tenant)).changeCounter
            try await store.write(zone: "Z", of: Self.tenant) { try await $0.delete([Tombstone(recordName: "gone", recordType: "Note")]) }
            #expect(try await store.records(named: ["gone"], inZone: "Z", of: Self.tenant).isEmpty)
            #expect(try #require(try await store.zone(named: "Z", of: Self.tenant)).changeCounter == before + 1)
            let rows = try await database.inspect("SELECT record_type, is_deleted, change_counter FROM records WHERE record_name = 'gone'")
            #expect(rows == "Note|1|\(before + 1)")
        }
    }

    @Test("concurrent writers to one zone get distinct, gap-free counters in commit order")
    func concurrentWriters() async throws {
        try await Self.withStore { store, _ in
            _ = try await store.createZone(named: "Z", of: Self.tenant)
            let start = try #require(try await store.zone(named: "Z", of: Self.tenant)).changeCounter
            // As many writers as the isolation test below, for its reason: on PostgreSQL each
            // waits for the tenant's lock holding one of the suite's four pooled connections.
            let writers = 30
            let tags = try await withThrowingTaskGroup(of: String.self) { group in
                for index in 0..<writers {
                    group.addTask {
                        try await store.write(zone: "Z", of: Self.tenant) { try await $0.save([Self.record("r\(index)")]) }[0].recordChangeTag
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            let counters = tags.compactMap { Int64($0, radix: 36) }.sorted()
            #expect(counters == Array(start + 1...start + Int64(writers)))
        }
    }

    @Test("writers sharing a commit: a failing one rolls back only its own changes")
    func groupCommitIsolation() async throws {
        try await Self.withStore { store, _ in
            _ = try await store.createZone(named: "Z", of: Self.tenant)
            struct Refused: Error {}
            // Enough writers to share commits on SQLite; few enough that on PostgreSQL, where
            // the tenant's writes queue for a lock while holding one of the suite's four pooled
            // connections, the last of them is leased well within the pool's wait on a loaded machine.
            let writers = 30
            let outcomes = await withTaskGroup(of: (Int, Bool).self) { group in
                for index in 0..<writers {
                    group.addTask {
                        do {
                            _ = try await store.write(zone: "Z", of: Self.tenant) { transaction in
                                _ = try await transaction.save([Self.record("w\(index)")])
                                if index.isMultiple(of: 3) { throw Refused() }
                            }
                            return (index, true)
                        } catch {
                            return (index, false)
                        }
                    }
                }
                return await group.reduce(into: [Int: Bool]()) { $0[$1.0] = $1.1 }
            }
            let names = (0..<writers).map { "w\($0)" }
            let stored = try await store.records(named: names, inZone: "Z", of: Self.tenant)
            for index in 0..<writers {
                #expect(outcomes[index] == !index.isMultiple(of: 3))
                #expect((stored[NameKey("w\(index)")] != nil) == !index.isMultiple(of: 3), "w\(index)")
            }
        }
    }
}
