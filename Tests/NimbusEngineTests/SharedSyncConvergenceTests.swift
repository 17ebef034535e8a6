//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusEngine
import NimbusModel
import Testing

/// The convergence property in the shared database: while the owner and a participant write,
/// records move in and out of shared hierarchies and a share is withdrawn and offered again,
/// a participant who follows their shared database's feeds ends with exactly what they may
/// read.
@Suite("sync convergence: the shared database")
struct SharedSyncConvergenceTests {
    static let chats = ["chatA", "chatB", "chatC"]
    static let names: [String] = (0..<30).map { index in "r" + String(index) }

    @Test("owner, participant and share churn: every participant replica ends equal to what they may read", arguments: [1, 2, 3])
    func convergence(seed: UInt64) async throws {
        try await EngineFixture.with { f in
            try await f.makeZone("Chats", for: f.alice)
            _ = try await f.modify(Self.chats.map { RecordOperation(kind: .create, recordName: $0, recordType: "Chat") }, zone: "Chats")
            try await Self.share("chatA", f)
            try await Self.share("chatB", f)
            let writersDone = DoneCounter()
            let writerCount = 4
            let replicas = try await withThrowingTaskGroup(of: SharedReplica?.self) { group in
                for writer in 0..<3 {
                    group.addTask {
                        var random = SplitMix64(seed: seed &* 1000 &+ UInt64(writer))
                        // Writer 2 is Bob, writing through his shared database.
                        let scope: DatabaseScope = writer == 2 ? .shared : .private
                        for _ in 0..<120 {
                            await Self.randomWrite(f, scope: scope, random: &random)
                            try await Task.sleep(for: .milliseconds(1))
                        }
                        writersDone.increment()
                        return nil
                    }
                }
                group.addTask {
                    // Alice withdraws chatB's share and offers it again, now and then.
                    for _ in 0..<4 {
                        try await Task.sleep(for: .milliseconds(40))
                        _ = try await f.modify([RecordOperation(kind: .forceDelete, recordName: "share-chatB")], zone: "Chats")
                        try await Task.sleep(for: .milliseconds(40))
                        try await Self.share("chatB", f)
                    }
                    writersDone.increment()
                    return nil
                }
                for client in 0..<2 {
                    group.addTask {
                        var replica = SharedReplica(limit: 1 + client * 3)
                        while writersDone.value < writerCount {
                            try await replica.sync(f, rounds: 1)
                            replica.roundsDuringWrites += 1
                            await Task.yield()
                        }
                        try await replica.sync(f, rounds: nil)
                        return replica
                    }
                }
                var replicas: [SharedReplica] = []
                for try await replica in group { if let replica { replicas.append(replica) } }
                return replicas
            }
            let readable = try await Self.readable(f)
            #expect(readable.count > 3, "Bob can read almost nothing: the test proves little")
            for replica in replicas {
                #expect(replica.roundsDuringWrites >= 5, "the clients hardly synced while the writers wrote")
                let differences = SyncConvergenceTests.differences(replica.data, ["Chats": readable])
                #expect(differences.isEmpty, "replica differs from what Bob may read: \(differences.prefix(10))")
            }
        }
    }

    /// Alice shares a chat with Bob (read-write), who accepts.
    static func share(_ chat: String, _ f: EngineFixture) async throws {
        let results = try await f.modify(
            [
                RecordOperation(
                    kind: .create,
                    recordName: "share-\(chat)",
                    recordType: Share.recordType,
                    share: ShareChange(
                        rootRecordName: chat,
                        participants: [ParticipantInput(lookupInfo: .userRecordName(f.bob), permission: .readWrite)]
                    )
                )
            ],
            zone: "Chats"
        )
        guard let guid = results.first?.record?.shareDetails?.share.shortGUID else { throw FixtureError("not shared: \(results)") }
        _ = try await f.database.acceptShares([ShareLookup(shortGUID: guid)], access: f.access(f.bob))[0].get()
    }

    /// Saves, updates, deletes and re-parenting, under the chats or other records or nowhere.
    static func randomWrite(_ f: EngineFixture, scope: DatabaseScope, random: inout SplitMix64) async {
        let name = names[Int(random.next() % UInt64(names.count))]
        let parents: [String] = chats + names
        let parent = parents[Int(random.next() % UInt64(parents.count))]
        var operation: RecordOperation
        switch random.next() % 100 {
        case 0..<45:
            operation = .note(name, ["v": .int64(Int64(random.next() % 1000))], kind: .forceReplace)
            operation.parent = .set(parent)
        case 45..<65:
            operation = .note(name, ["w": .string("u\(random.next() % 1000)")], kind: .forceUpdate)
        case 65..<80:
            operation = RecordOperation(kind: .forceDelete, recordName: name)
        default:
            operation = .note(name, [:], kind: .forceUpdate)
            operation.parent = random.next() % 4 == 0 ? .clear : .set(parent)
        }
        let owner: String = scope == .shared ? f.alice : ""
        let zone = ZoneID(zoneName: "Chats", ownerRecordName: owner)
        let user: String = scope == .shared ? f.bob : f.alice
        _ = try? await f.database.modifyRecords([operation], inZone: zone, atomic: false, access: f.access(user, scope))
    }

    /// What Bob may read of Alice's zone, through record lookups: another path than the feeds.
    static func readable(_ f: EngineFixture) async throws -> [String: RecordState] {
        let shareNames: [String] = chats.map { chat in "share-" + chat }
        var all: [String] = chats + names
        all += shareNames
        let results = try await f.database.lookupRecords(
            named: all,
            inZone: ZoneID(zoneName: "Chats", ownerRecordName: f.alice),
            access: f.access(f.bob, .shared)
        )
        var readable: [String: RecordState] = [:]
        for case .success(let record) in results { readable[record.recordID.recordName] = RecordState(record) }
        return readable
    }
}

/// Bob's local copy of his shared database, kept by its change feeds alone, as a careful
/// client keeps it: an expired zone token means dropping the zone and fetching it again.
struct SharedReplica {
    let limit: Int
    var data: [String: [String: RecordState]] = [:]
    var zoneTokens: [ZoneID: String] = [:]
    var databaseToken: String?
    var roundsDuringWrites = 0

    init(limit: Int) {
        self.limit = limit
    }

    mutating func sync(_ f: EngineFixture, rounds: Int?) async throws {
        var round = 0
        while rounds.map({ round < $0 }) ?? true {
            round += 1
            let access = f.access(f.bob, .shared)
            let page = try await f.database.databaseChanges(syncToken: databaseToken, resultsLimit: limit, access: access)
            for change in page.zones {
                switch change {
                case .changed(let zone): try await syncZone(zone.zoneID, f)
                case .deleted(let zoneID): forget(zoneID)
                }
            }
            databaseToken = page.syncToken
            if !page.moreComing && rounds == nil { return }
        }
    }

    private mutating func syncZone(_ zoneID: ZoneID, _ f: EngineFixture) async throws {
        while true {
            guard let page = try await fetch(zoneID, f) else { return }
            for change in page.changes {
                switch change {
                case .saved(let record): data[zoneID.zoneName, default: [:]][record.recordID.recordName] = RecordState(record)
                case .deleted(let tombstone): data[zoneID.zoneName, default: [:]][tombstone.recordName] = nil
                }
            }
            if data[zoneID.zoneName] == nil { data[zoneID.zoneName] = [:] }
            zoneTokens[zoneID] = page.syncToken
            if !page.moreComing { return }
        }
    }

    /// One page, or `nil` when the zone is gone (the next database page says so). An expired
    /// token means the zone must be fetched again from scratch.
    private mutating func fetch(_ zoneID: ZoneID, _ f: EngineFixture) async throws -> RecordChangesPage? {
        let access = f.access(f.bob, .shared)
        do {
            return try await f.database.recordChanges(inZone: zoneID, syncToken: zoneTokens[zoneID], resultsLimit: limit, access: access)
        } catch  where error.code == .changeTokenExpired {
            forget(zoneID)
            return try await fetch(zoneID, f)
        } catch  where error.code == .zoneNotFound {
            return nil
        }
    }

    private mutating func forget(_ zoneID: ZoneID) {
        data[zoneID.zoneName] = nil
        zoneTokens[zoneID] = nil
    }
}
