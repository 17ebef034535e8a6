//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Foundation
import NimbusEngine
import NimbusModel
import Testing

@Suite("change feeds")
struct ChangeFeedTests {
    @Test("a sync from scratch pages through every live record once, and the last token resumes after them")
    func initialSyncPages() async throws {
        try await EngineFixture.with { f in
            try await f.makeZone("Notes", for: f.alice)
            for index in 0..<25 { _ = try await f.save(.note("n\(index)", ["i": .int64(Int64(index))])) }
            _ = try await f.modify([.init(kind: .delete, recordName: "n3")])
            var seen: [String] = []
            var token: String?
            var pages = 0
            repeat {
                let page = try await f.changes(after: token, limit: 4)
                pages += 1
                #expect(page.changes.count <= 4)
                for change in page.changes {
                    guard case .saved(let record) = change else { Issue.record("tombstone in a sync from scratch"); continue }
                    seen.append(record.recordID.recordName)
                }
                token = page.syncToken
                if !page.moreComing { break }
            } while pages < 100
            #expect(seen.count == 24)
            #expect(Set(seen).count == 24)
            #expect(!seen.contains("n3"))
            let after = try await f.changes(after: token)
            #expect(after.changes.isEmpty)
            #expect(!after.moreComing)
        }
    }

    @Test("later changes come once each in their latest state; deletes come as tombstones with their type")
    func incremental() async throws {
        try await EngineFixture.with { f in
            try await f.makeZone("Notes", for: f.alice)
            _ = try await f.save(.note("a", ["v": .string("1")]))
            _ = try await f.save(.note("b"))
            let start = try await f.changes(after: nil).syncToken
            _ = try await f.save(.note("a", ["v": .string("2")], kind: .forceUpdate))
            _ = try await f.save(.note("a", ["v": .string("3")], kind: .forceUpdate))
            _ = try await f.modify([.init(kind: .delete, recordName: "b")])
            _ = try await f.save(.note("c"))
            let page = try await f.changes(after: start)
            #expect(page.changes.count == 3)
            guard case .saved(let a) = page.changes[0], case .deleted(let b) = page.changes[1], case .saved(let c) = page.changes[2] else {
                Issue.record("unexpected changes \(page.changes)")
                return
            }
            #expect(a.recordID.recordName == "a")
            #expect(a.fields["v"] == .string("3"))
            #expect(b == Tombstone(recordName: "b", recordType: "Note"))
            #expect(c.recordID.recordName == "c")
            // Asking again with the same token is idempotent; the new token has nothing after it.
            #expect(try await f.changes(after: start).changes == page.changes)
            #expect(try await f.changes(after: page.syncToken).changes.isEmpty)
        }
    }

    @Test("a client that stops after any page and resumes later loses nothing and gets nothing twice")
    func resumeAfterAnyPage() async throws {
        try await EngineFixture.with { f in
            try await f.makeZone("Notes", for: f.alice)
            for index in 0..<12 { _ = try await f.save(.note("n\(index)")) }
            let first = try await f.changes(after: nil, limit: 5)
            #expect(first.moreComing)
            // Between pages: change a record already sent, one not yet sent, and delete one of each.
            _ = try await f.save(.note("n0", ["v": .string("x")], kind: .forceUpdate))
            _ = try await f.save(.note("n9", ["v": .string("y")], kind: .forceUpdate))
            _ = try await f.modify([.init(kind: .delete, recordName: "n1"), .init(kind: .delete, recordName: "n10")], atomic: false)
            var replica: [String: Record] = [:]
            apply(first.changes, to: &replica)
            var token = first.syncToken
            var received: [String] = []
            while true {
                let page = try await f.changes(after: token, limit: 3)
                received += page.changes.map(\.recordName)
                apply(page.changes, to: &replica)
                token = page.syncToken
                if !page.moreComing { break }
            }
            #expect(Set(received).count == received.count, "a record came twice after the first page: \(received)")
            let server = try await f.serverState()
            #expect(replica == server)
        }
    }

    @Test("desiredRecordTypes filters the feed without losing the place of the other types")
    func recordTypes() async throws {
        try await EngineFixture.with { f in
            try await f.makeZone("Notes", for: f.alice)
            for index in 0..<6 {
                _ = try await f.save(.note("n\(index)"))
                _ = try await f.save(RecordOperation(kind: .create, recordName: "t\(index)", recordType: "Tag"))
            }
            var names: [String] = []
            var token: String?
            while true {
                let page = try await f.database.recordChanges(
                    inZone: ZoneID(zoneName: "Notes", ownerRecordName: ""),
                    syncToken: token,
                    resultsLimit: 2,
                    recordTypes: ["Tag"],
                    access: f.access(f.alice)
                )
                names += page.changes.map(\.recordName)
                token = page.syncToken
                if !page.moreComing { break }
            }
            #expect(names == (0..<6).map { "t\($0)" })
        }
    }

    @Test("the database feed lists created, changed and deleted zones, each once")
    func databaseFeed() async throws {
        try await EngineFixture.with { f in
            let empty = try await f.database.databaseChanges(syncToken: nil, resultsLimit: nil, access: f.access(f.alice))
            #expect(empty.zones.isEmpty)
            try await f.makeZone("Notes", for: f.alice)
            try await f.makeZone("Gone", for: f.alice)
            _ = try await f.modifyZones([.delete(ZoneID(zoneName: "Gone", ownerRecordName: ""))])
            let first = try await f.database.databaseChanges(syncToken: empty.syncToken, resultsLimit: nil, access: f.access(f.alice))
            #expect(first.zones.map(\.description) == ["changed Notes", "deleted Gone"])
            // From scratch, a zone deleted before the client knew it is left out.
            let scratch = try await f.database.databaseChanges(syncToken: nil, resultsLimit: nil, access: f.access(f.alice))
            #expect(scratch.zones.map(\.description) == ["changed Notes"])

            try await f.makeZone("Work", for: f.alice)
            _ = try await f.save(.note("n1"))
            _ = try await f.save(.note("d1"), zone: ZoneID.defaultZoneName)
            _ = try await f.save(.note("n2"))
            var zones: [String] = []
            var token = first.syncToken
            while true {
                let page = try await f.database.databaseChanges(syncToken: token, resultsLimit: 1, access: f.access(f.alice))
                zones += page.zones.map(\.description)
                token = page.syncToken
                if !page.moreComing { break }
            }
            #expect(zones == ["changed Work", "changed _defaultZone", "changed Notes"])
            // Bob's database is his own.
            let bobs = try await f.database.databaseChanges(syncToken: nil, resultsLimit: nil, access: f.access(f.bob))
            #expect(bobs.zones.isEmpty)
        }
    }

    @Test("a zone deleted and created again is a new zone: old tokens ask for a sync from scratch")
    func recreatedZone() async throws {
        try await EngineFixture.with { f in
            try await f.makeZone("Notes", for: f.alice)
            _ = try await f.save(.note("n1"))
            let token = try await f.changes(after: nil).syncToken
            _ = try await f.modifyZones([.delete(ZoneID(zoneName: "Notes", ownerRecordName: ""))])
            await #expect(throws: NimbusError.zoneNotFound) { _ = try await f.changes(after: token) }
            try await f.makeZone("Notes", for: f.alice)
            let error = await #expect(throws: NimbusError.self) { _ = try await f.changes(after: token) }
            #expect(error?.code == .changeTokenExpired)
            #expect(error?.code.serverErrorCode == "BAD_REQUEST")
            #expect(error?.reason.contains("from scratch") == true)
            #expect(try await f.changes(after: nil).changes.isEmpty)
        }
    }

    @Test("forged tokens, other zones' tokens and database tokens are refused with BAD_REQUEST")
    func foreignTokens() async throws {
        try await EngineFixture.with { f in
            try await f.makeZone("Notes", for: f.alice)
            try await f.makeZone("Other", for: f.alice)
            try await f.makeZone("Notes", for: f.bob)
            _ = try await f.save(.note("secret"), as: f.bob)
            let other = try await f.changes(after: nil, zone: "Other").syncToken
            let bobs = try await f.changes(after: nil, as: f.bob).syncToken
            let database = try await f.database.databaseChanges(syncToken: nil, resultsLimit: nil, access: f.access(f.alice)).syncToken
            let valid = try await f.changes(after: nil).syncToken
            var tampered = Array(valid)
            tampered[2] = tampered[2] == "A" ? "B" : "A"
            for token in [other, bobs, database, String(tampered), "garbage", ""] {
                let error = await #expect(throws: NimbusError.self) { _ = try await f.changes(after: token) }
                #expect(error?.code == .badRequest, "token \(token)")
            }
            await #expect(throws: NimbusError.self) {
                _ = try await f.database.databaseChanges(syncToken: valid, resultsLimit: nil, access: f.access(f.alice))
            }
            // Alice's database token is not Bob's.
            await #expect(throws: NimbusError.self) {
                _ = try await f.database.databaseChanges(syncToken: database, resultsLimit: nil, access: f.access(f.bob))
            }
        }
    }

    @Test("tombstones are pruned after the retention; a token from before them asks for a sync from scratch")
    func pruning() async throws {
        try await EngineFixture.with { f in
            try await f.makeZone("Notes", for: f.alice)
            _ = try await f.save(.note("a"))
            _ = try await f.save(.note("b"))
            let old = try await f.changes(after: nil).syncToken
            _ = try await f.modify([.init(kind: .delete, recordName: "a")])
            let current = try await f.changes(after: old).syncToken
            f.clock.advance(by: .milliseconds(3_600_000))
            #expect(try await f.database.pruneTombstones(olderThan: .seconds(7200)) == 0)
            #expect(try await f.changes(after: old).changes.count == 1)
            f.clock.advance(by: .milliseconds(3_600_001))
            #expect(try await f.database.pruneTombstones(olderThan: .seconds(7200)) == 1)
            let error = await #expect(throws: NimbusError.self) { _ = try await f.changes(after: old) }
            #expect(error?.code == .changeTokenExpired)
            // A client that had seen the delete goes on as before.
            #expect(try await f.changes(after: current).changes.isEmpty)
            _ = try await f.save(.note("c"))
            #expect(try await f.changes(after: current).changes.map(\.recordName) == ["c"])
        }
    }

    @Test("another user's zone is not found; the public database's default zone has a feed")
    func permissions() async throws {
        try await EngineFixture.with { f in
            try await f.makeZone("Notes", for: f.bob)
            await #expect(throws: NimbusError.zoneNotFound) { _ = try await f.changes(after: nil, zone: "Notes", owner: f.bob) }
            _ = try await f.save(.note("p1"), zone: ZoneID.defaultZoneName, scope: .public)
            let page = try await f.database.recordChanges(
                inZone: nil,
                syncToken: nil,
                resultsLimit: nil,
                access: f.access(nil, .public)
            )
            #expect(page.changes.map(\.recordName) == ["p1"])
            #expect(page.zoneID.ownerRecordName == "_defaultOwner")
        }
    }

    @Test("resultsLimit below 1 is refused and above the maximum is lowered to it")
    func limits() async throws {
        try await EngineFixture.with { f in
            try await f.makeZone("Notes", for: f.alice)
            await #expect(throws: NimbusError.self) { _ = try await f.changes(after: nil, limit: 0) }
            let ops = (0..<200).map { RecordOperation.note("n\($0)") }
            _ = try await f.modify(ops)
            _ = try await f.save(.note("last"))
            let page = try await f.changes(after: nil, limit: 10_000)
            #expect(page.changes.count == DatabaseService.maximumChangesPerPage)
            #expect(page.moreComing)
        }
    }

    @Test("pruning during a sync from scratch: tombstones from before it began do not matter, later ones do")
    func pruningDuringInitialSync() async throws {
        try await EngineFixture.with { f in
            try await f.makeZone("Notes", for: f.alice)
            for index in 0..<6 { _ = try await f.save(.note("n\(index)")) }
            _ = try await f.modify([.init(kind: .delete, recordName: "n0")])
            let first = try await f.changes(after: nil, limit: 2)
            #expect(first.moreComing)
            // The delete of n0 predates the sync; pruning it changes nothing for this client.
            f.clock.advance(by: .milliseconds(10_000))
            #expect(try await f.database.pruneTombstones(olderThan: .seconds(5)) == 1)
            let second = try await f.changes(after: first.syncToken, limit: 2)
            #expect(second.changes.count == 2)
            // A record the client may already have is deleted, and that tombstone is pruned.
            _ = try await f.modify([.init(kind: .delete, recordName: "n1")])
            f.clock.advance(by: .milliseconds(10_000))
            #expect(try await f.database.pruneTombstones(olderThan: .seconds(5)) == 1)
            let error = await #expect(throws: NimbusError.self) { _ = try await f.changes(after: second.syncToken) }
            #expect(error?.code == .changeTokenExpired)
        }
    }

    @Test("tokens open only in their own database, container and environment")
    func tokenScopes() async throws {
        try await EngineFixture.with { f in
            _ = try await f.accounts.createContainer(EngineFixture.container, environment: .production)
            _ = try await f.save(.note("mine"), zone: ZoneID.defaultZoneName)
            _ = try await f.save(.note("public"), zone: ZoneID.defaultZoneName, scope: .public)
            let defaultZone = ZoneID(zoneName: ZoneID.defaultZoneName, ownerRecordName: "")
            func page(_ scope: DatabaseScope, token: String?, environment: Environment = .development) async throws -> RecordChangesPage {
                let caller = Caller(container: EngineFixture.container, environment: environment, kind: .user, userRecordName: f.alice)
                return try await f.database.recordChanges(
                    inZone: defaultZone,
                    syncToken: token,
                    resultsLimit: nil,
                    access: DatabaseAccess(caller: caller, scope: scope)
                )
            }
            let privateToken = try await page(.private, token: nil).syncToken
            let publicToken = try await page(.public, token: nil).syncToken
            await #expect(throws: NimbusError.self) { _ = try await page(.public, token: privateToken) }
            await #expect(throws: NimbusError.self) { _ = try await page(.private, token: publicToken) }
            await #expect(throws: NimbusError.self) { _ = try await page(.private, token: privateToken, environment: .production) }
            #expect(try await page(.private, token: privateToken).changes.isEmpty)
        }
    }

    @Test("changes/zone shares one budget of 200 records; the zones past it resume where they stood")
    func sharedBudget() async throws {
        try await EngineFixture.with { f in
            for zone in ["A", "B", "C"] {
                try await f.makeZone(zone, for: f.alice)
                _ = try await f.modify((0..<150).map { RecordOperation.note("\(zone)\($0)") }, zone: zone)
            }
            var tokens: [String: String] = [:]
            var received: [String: Int] = [:]
            var rounds = 0
            while rounds < 10 {
                rounds += 1
                let queries = ["A", "B", "C"].map {
                    ZoneFeedQuery(zoneID: ZoneID(zoneName: $0, ownerRecordName: ""), syncToken: tokens[$0], resultsLimit: nil, recordTypes: nil)
                }
                let results = try await f.database.recordChanges(queries, access: f.access(f.alice))
                var total = 0
                var more = false
                for (zone, result) in zip(["A", "B", "C"], results) {
                    let page = try result.get()
                    total += page.changes.count
                    received[zone, default: 0] += page.changes.count
                    tokens[zone] = page.syncToken
                    more = more || page.moreComing
                }
                #expect(total <= DatabaseService.maximumChangesPerPage)
                if !more { break }
            }
            #expect(received == ["A": 150, "B": 150, "C": 150])
            #expect(rounds == 3)
        }
    }

    @Test("changes/zone refuses the whole request when the caller may not read the database")
    func multiZoneAuthorization() async throws {
        try await EngineFixture.with { f in
            let query = ZoneFeedQuery(zoneID: nil, syncToken: nil, resultsLimit: nil, recordTypes: nil)
            let error = await #expect(throws: NimbusError.self) { _ = try await f.database.recordChanges([query], access: f.access(nil)) }
            #expect(error?.code == .authenticationRequired)
        }
    }

    private func apply(_ changes: [RecordChange], to replica: inout [String: Record]) {
        for change in changes {
            switch change {
            case .saved(let record): replica[record.recordID.recordName] = record
            case .deleted(let tombstone): replica[tombstone.recordName] = nil
            }
        }
    }

    @Test("tokens and continuation markers are standard base64, and tokens of the earlier base64url form still open")
    func standardBase64Tokens() async throws {
        try await EngineFixture.with { f in
            try await f.makeZone("Notes", for: f.alice)
            for index in 0..<6 { _ = try await f.save(.note("n\(index)")) }
            let first = try await f.changes(after: nil, limit: 2)
            let database = try await f.database.databaseChanges(syncToken: nil, resultsLimit: nil, access: f.access(f.alice)).syncToken
            let query = try await f.database.queryRecords(
                Query(recordType: "Note"),
                inZone: ZoneID(zoneName: "Notes", ownerRecordName: f.alice),
                resultsLimit: 2,
                continuationMarker: nil,
                access: f.access(f.alice)
            )
            let marker = try #require(query.continuationMarker)
            for token in [first.syncToken, database, marker] {
                #expect(Data(base64Encoded: token) != nil, "\(token) is not standard base64")
                #expect(!token.contains(".") && !token.contains("-") && !token.contains("_"), "\(token)")
            }

            // The same token in the form handed out before: base64url payload "." base64url MAC.
            func earlierForm(_ token: String) throws -> String {
                let bytes = try #require(Data(base64Encoded: token))
                func base64URL(_ data: Data) -> String {
                    data.base64EncodedString().replacing("+", with: "-").replacing("/", with: "_").replacing("=", with: "")
                }
                return base64URL(bytes.prefix(bytes.count - 32)) + "." + base64URL(bytes.suffix(32))
            }
            let resumed = try await f.changes(after: earlierForm(first.syncToken), limit: 2)
            let expected = try await f.changes(after: first.syncToken, limit: 2)
            #expect(resumed.changes.count == 2)
            #expect(resumed.changes == expected.changes)
            let next = try await f.database.queryRecords(
                Query(recordType: "Note"),
                inZone: ZoneID(zoneName: "Notes", ownerRecordName: f.alice),
                resultsLimit: 2,
                continuationMarker: earlierForm(marker),
                access: f.access(f.alice)
            )
            #expect(next.records.count == 2)
            _ = try await f.database.databaseChanges(syncToken: earlierForm(database), resultsLimit: nil, access: f.access(f.alice))
            // A forged MAC in either form is refused.
            let forged = try earlierForm(first.syncToken).dropLast(2) + "AA"
            await #expect(throws: NimbusError.self) { _ = try await f.changes(after: String(forged)) }
        }
    }
}

extension RecordChange {
    var recordName: String {
        switch self {
        case .saved(let record): record.recordID.recordName
        case .deleted(let tombstone): tombstone.recordName
        }
    }
}

extension DatabaseChangesPage.ZoneChange: CustomStringConvertible {
    public var description: String {
        switch self {
        case .changed(let zone): "changed \(zone.zoneID.zoneName)"
        case .deleted(let zoneID): "deleted \(zoneID.zoneName)"
        }
    }
}

extension EngineFixture {
    /// One page of a zone's change feed in a user's private database.
    func changes(
        after token: String?,
        limit: Int? = nil,
        zone: String = "Notes",
        owner: String = "",
        as user: String? = nil
    ) async throws -> RecordChangesPage {
        try await database.recordChanges(
            inZone: ZoneID(zoneName: zone, ownerRecordName: owner),
            syncToken: token,
            resultsLimit: limit,
            access: access(user ?? alice)
        )
    }

    func modifyZones(_ operations: [ZoneOperation], as user: String? = nil) async throws -> [ZoneResult] {
        try await database.modifyZones(operations, access: access(user ?? alice))
    }

    /// Every live record of a zone, by name, read through queries: another code path than the
    /// feeds, so a bug shared by both cannot hide. (Every test record is a `Note`.)
    func serverState(zone: String = "Notes", as user: String? = nil) async throws -> [String: Record] {
        var state: [String: Record] = [:]
        var marker: String?
        repeat {
            let page = try await database.queryRecords(
                Query(recordType: "Note", filters: [], sortDescriptors: []),
                inZone: ZoneID(zoneName: zone, ownerRecordName: ""),
                resultsLimit: 200,
                continuationMarker: marker,
                access: access(user ?? alice)
            )
            for record in page.records { state[record.recordID.recordName] = record }
            marker = page.continuationMarker
        } while marker != nil
        return state
    }

}
