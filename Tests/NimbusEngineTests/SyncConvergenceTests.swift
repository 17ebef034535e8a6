//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusEngine
import NimbusModel
import Synchronization
import Testing

/// The property the change feeds exist for: whatever writers do concurrently, a client that
/// follows the database and zone feeds ends with exactly the server's data.
@Suite("sync convergence")
struct SyncConvergenceTests {
    static let zoneNames = ["Z0", "Z1", "Z2"]

    @Test("concurrent writers and continuously syncing clients: every replica ends equal to the server", arguments: [1, 2, 3])
    func convergence(seed: UInt64) async throws {
        try await EngineFixture.with { f in try await Self.converge([f], seed: seed) }
    }

    @Test("writers and clients spread over two server instances on one database: every replica ends equal", arguments: [4, 5])
    func convergenceAcrossInstances(seed: UInt64) async throws {
        try await EngineFixture.with { f in
            try await f.withSecondInstance { other in
                var second = f
                second.database = other
                try await Self.converge([f, second], seed: seed)
            }
        }
    }

    /// Writers and syncing clients, spread round-robin over `instances` (fixtures on one database).
    static func converge(_ instances: [EngineFixture], seed: UInt64) async throws {
        let f = instances[0]
        for zone in Self.zoneNames { try await f.makeZone(zone, for: f.alice) }
        let writersDone = DoneCounter()
        let writerCount = 3
        let clientCount = 3
        let replicas = try await withThrowingTaskGroup(of: Replica?.self) { group in
            for writer in 0..<writerCount {
                group.addTask {
                    let f = instances[writer % instances.count]
                    var random = SplitMix64(seed: seed &* 1000 &+ UInt64(writer))
                    for _ in 0..<150 {
                        await Self.randomWrite(f, random: &random)
                        // Pace the writers so the clients sync many times while they write.
                        try await Task.sleep(for: .milliseconds(1))
                    }
                    writersDone.increment()
                    return nil
                }
            }
            for client in 0..<clientCount {
                group.addTask {
                    let f = instances[(client + 1) % instances.count]
                    var replica = Replica(limit: 1 + client * 2)
                    while writersDone.value < writerCount {
                        try await replica.sync(f, rounds: 1)
                        replica.roundsDuringWrites += 1
                        // Reads may complete without suspending: give the writers their turn.
                        await Task.yield()
                        try Task.checkCancellation()
                    }
                    // Catch up once the writers are done.
                    try await replica.sync(f, rounds: nil)
                    return replica
                }
            }
            var replicas: [Replica] = []
            for try await replica in group { if let replica { replicas.append(replica) } }
            return replicas
        }
        let server = try await Self.serverData(f)
        #expect(server.values.map(\.count).reduce(0, +) > 0, "the writers left no data: the test proves nothing")
        for replica in replicas {
            #expect(replica.roundsDuringWrites >= 5, "the clients hardly synced while the writers wrote")
            let differences = Self.differences(replica.data, server)
            #expect(differences.isEmpty, "replica differs from the server: \(differences.prefix(10))")
        }
    }

    /// One random write: saves, updates, deletes, re-parenting, and now and then a zone deleted
    /// and created again. Failures (a record deleted by another writer) are part of the game.
    static func randomWrite(_ f: EngineFixture, random: inout SplitMix64) async {
        let zone = zoneNames[Int(random.next() % UInt64(zoneNames.count))]
        let name = "r\(random.next() % 40)"
        let other = "r\(random.next() % 40)"
        let operation: RecordOperation
        switch random.next() % 100 {
        case 0..<40:
            operation = .note(name, ["v": .int64(Int64(random.next() % 1000))], kind: .forceReplace)
        case 40..<60:
            operation = .note(name, ["w": .string("u\(random.next() % 1000)")], kind: .forceUpdate)
        case 60..<80:
            operation = RecordOperation(kind: .forceDelete, recordName: name)
        case 80..<97:
            var reparent = RecordOperation.note(name, [:], kind: .forceUpdate)
            reparent.parent = random.next() % 3 == 0 ? .clear : .set(other)
            operation = reparent
        default:
            _ = try? await f.modifyZones([.delete(ZoneID(zoneName: zone, ownerRecordName: ""))])
            _ = try? await f.modifyZones([.create(ZoneID(zoneName: zone, ownerRecordName: ""))])
            return
        }
        _ = try? await f.modify([operation], zone: zone, atomic: false)
    }

    /// What differs between a replica and the server, one line per record or zone.
    static func differences(_ replica: [String: [String: RecordState]], _ server: [String: [String: RecordState]]) -> [String] {
        var lines: [String] = []
        for zone in Set(replica.keys).union(server.keys).sorted() {
            guard let mine = replica[zone], let theirs = server[zone] else {
                lines.append("zone \(zone): replica \(replica[zone] == nil ? "lacks" : "has") it, server \(server[zone] == nil ? "lacks" : "has") it")
                continue
            }
            for name in Set(mine.keys).union(theirs.keys).sorted() where mine[name] != theirs[name] {
                lines.append(
                    "\(zone)/\(name): replica \(mine[name].map(String.init(describing:)) ?? "none"), server \(theirs[name].map(String.init(describing:)) ?? "none")"
                )
            }
        }
        return lines
    }

    /// The server's live records per zone, read through queries: another code path than the feeds.
    static func serverData(_ f: EngineFixture) async throws -> [String: [String: RecordState]] {
        var data: [String: [String: RecordState]] = [:]
        for zone in try await f.database.zones(access: f.access(f.alice)) where !zone.zoneID.isDefaultZone {
            var records: [String: RecordState] = [:]
            var marker: String?
            repeat {
                let page = try await f.database.queryRecords(
                    Query(recordType: "Note", filters: [], sortDescriptors: []),
                    inZone: zone.zoneID,
                    resultsLimit: 200,
                    continuationMarker: marker,
                    access: f.access(f.alice)
                )
                for record in page.records { records[record.recordID.recordName] = RecordState(record) }
                marker = page.continuationMarker
            } while marker != nil
            data[zone.zoneID.zoneName] = records
        }
        return data
    }
}

/// Counts writers that have finished.
final class DoneCounter: Sendable {
    private let count = Atomic<Int>(0)

    var value: Int { count.load(ordering: .sequentiallyConsistent) }

    func increment() {
        count.add(1, ordering: .sequentiallyConsistent)
    }
}

/// What a replica keeps of a record, and what must equal the server's.
struct RecordState: Hashable, CustomStringConvertible {
    var changeTag: String
    var fields: [NameKey: FieldValue]
    var parent: String?

    init(_ record: Record) {
        changeTag = record.recordChangeTag
        fields = record.fields
        parent = record.parentRecordName
    }

    var description: String { "\(changeTag) \(fields) parent \(parent ?? "-")" }
}

/// A client's local copy of Alice's private database, kept by the change feeds alone.
struct Replica {
    let limit: Int
    var data: [String: [String: RecordState]] = [:]
    var zoneTokens: [String: String] = [:]
    var databaseToken: String?
    /// How many rounds the client synced while writers were still writing.
    var roundsDuringWrites = 0

    init(limit: Int) {
        self.limit = limit
    }

    /// Follows the database feed and the feeds of the zones it names; `rounds: nil` until both
    /// report nothing more to come.
    mutating func sync(_ f: EngineFixture, rounds: Int?) async throws {
        var round = 0
        while rounds.map({ round < $0 }) ?? true {
            round += 1
            let page = try await f.database.databaseChanges(syncToken: databaseToken, resultsLimit: limit, access: f.access(f.alice))
            for change in page.zones {
                switch change {
                case .changed(let zone): try await syncZone(zone.zoneID.zoneName, f)
                case .deleted(let zoneID): forget(zoneID.zoneName)
                }
            }
            databaseToken = page.syncToken
            if !page.moreComing && rounds == nil { return }
        }
    }

    private mutating func syncZone(_ zone: String, _ f: EngineFixture) async throws {
        while true {
            let page: RecordChangesPage
            do {
                page = try await f.changes(after: zoneTokens[zone], limit: limit, zone: zone)
            } catch let error as NimbusError where error.code == .changeTokenExpired {
                // The zone was deleted and created again: start it over.
                forget(zone)
                continue
            } catch let error as NimbusError where error.code == .zoneNotFound {
                // Deleted since the database page was read; the next page says so.
                return
            }
            for change in page.changes {
                switch change {
                case .saved(let record): data[zone, default: [:]][record.recordID.recordName] = RecordState(record)
                case .deleted(let tombstone): data[zone, default: [:]][tombstone.recordName] = nil
                }
            }
            if data[zone] == nil { data[zone] = [:] }
            zoneTokens[zone] = page.syncToken
            if !page.moreComing { return }
        }
    }

    private mutating func forget(_ zone: String) {
        data[zone] = nil
        zoneTokens[zone] = nil
    }
}

/// A small deterministic random number generator, so a failing seed can be replayed.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
