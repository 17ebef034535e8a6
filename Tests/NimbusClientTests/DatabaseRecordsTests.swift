//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Foundation
import NimbusClient
import NimbusModel
import Synchronization
import Testing

@Suite("NimbusClient: zones and records against a live server", .timeLimit(.minutes(2)))
struct DatabaseRecordsTests {
    let notes = ZoneID(zoneName: "Notes", ownerRecordName: "")

    @Test("zones are created, listed and deleted")
    func zones() async throws {
        try await ClientFixture.with { f in
            let database = f.container(as: f.alice).privateCloudDatabase
            let created = try await database.save(zones: [notes])
            #expect(created.map(\.zoneName) == ["Notes"])
            let names = try await database.allZones().map(\.zoneName)
            #expect(Set(names) == ["_defaultZone", "Notes"])
            // Saving a zone that exists is not an error, as in CloudKit.
            #expect(try await database.save(zones: [notes]).map(\.zoneName) == ["Notes"])
            try await database.delete(zones: [notes])
            #expect(try await database.allZones().map(\.zoneName) == ["_defaultZone"])
        }
    }

    @Test("record zones as CloudKit names them: saved and deleted in one call, listed with their capabilities")
    func recordZones() async throws {
        try await ClientFixture.with { f in
            let database = f.container(as: f.alice).privateCloudDatabase
            let (saved, deleted) = try await database.modifyRecordZones(
                saving: [RecordZone(zoneName: "Notes"), RecordZone(zoneName: "Old")],
                deleting: []
            )
            #expect(saved.map(\.zoneID.zoneName) == ["Notes", "Old"] && deleted.isEmpty)
            #expect(saved.allSatisfy { !$0.zoneID.ownerRecordName.isEmpty }, "new zones come back with the server's IDs, owner filled in")
            let swapped = try await database.modifyRecordZones(
                saving: [RecordZone(zoneName: "Notes")],
                deleting: [ZoneID(zoneName: "Old", ownerRecordName: "")]
            )
            #expect(swapped.saved.map(\.zoneID.zoneName) == ["Notes"] && swapped.deleted.map(\.zoneName) == ["Old"])
            let both = try await #require(throws: NimbusError.self) {
                try await database.modifyRecordZones(
                    saving: [RecordZone(zoneName: "Notes")],
                    deleting: [ZoneID(zoneName: "Notes", ownerRecordName: "")]
                )
            }
            #expect(both.code == .badRequest)
            let zones = try await database.allRecordZones()
            #expect(Set(zones.map(\.zoneID.zoneName)) == ["_defaultZone", "Notes"])
            #expect(zones.first { $0.zoneID.isDefaultZone }?.capabilities == .fetchChanges)
            #expect(zones.first { $0.zoneID.zoneName == "Notes" }?.capabilities == [.fetchChanges, .atomic, .sharing])
            // A zone ID the server filled in (with its owner) round-trips as JSON.
            let notes = try #require(zones.first { $0.zoneID.zoneName == "Notes" })
            #expect(!notes.zoneID.ownerRecordName.isEmpty)
            #expect(try JSONDecoder().decode(RecordZone.self, from: JSONEncoder().encode(notes)) == notes)
        }
    }

    @Test("a saved record comes back with a change tag; a stale tag is serverRecordChanged carrying the server's record")
    func saveFetchAndConflict() async throws {
        try await ClientFixture.with { f in
            let database = f.container(as: f.alice).privateCloudDatabase
            try await database.save(zones: [notes])
            let saved = try await database.save(.note("n1", in: notes, ["title": .string("first")]))
            #expect(!saved.recordChangeTag.isEmpty)
            #expect(saved.created.userRecordName == f.alice.user.userRecordName)

            var edited = saved
            edited.fields["title"] = .string("second")
            let updated = try await database.save(edited)
            #expect(updated.recordChangeTag != saved.recordChangeTag)

            // The first copy's tag is stale now.
            var stale = saved
            stale.fields["title"] = .string("lost update")
            let error = try await #require(throws: NimbusError.self) { try await database.save(stale) }
            #expect(error.code == .serverRecordChanged)
            #expect(error.serverRecord?.fields["title"] == .string("second"))
            #expect(error.serverRecord?.recordChangeTag == updated.recordChangeTag)

            // A fetched record saved again is the whole record: a field removed locally goes.
            var current = try await database.record(named: "n1", in: notes)
            current.fields["extra"] = .string("x")
            current = try await database.save(current)
            current.fields["extra"] = nil
            current = try await database.save(current)
            #expect(try await database.record(named: "n1", in: notes).fields["extra"] == nil)
            stale = current
            stale.recordChangeTag = saved.recordChangeTag
            stale.fields["title"] = .string("lost update")

            // changedKeys overwrites whatever the server has.
            _ = try await database.save(stale, savePolicy: .changedKeys)
            #expect(try await database.record(named: "n1", in: notes).fields["title"] == .string("lost update"))
        }
    }

    @Test("a save asks back only the system fields and keeps the fields it sent; a changedKeys save gets the merged record")
    func savedFieldsEcho() async throws {
        try await ClientFixture.with { f in
            let (database, recorder) = Self.recordedDatabase(of: f)
            try await database.save(zones: [notes])
            let fields: [NameKey: FieldValue] = ["title": .string("kept"), "count": .int64(3)]
            let saved = try await database.save(.note("e1", in: notes, fields))
            #expect(saved.fields == fields)
            #expect(!saved.recordChangeTag.isEmpty)
            #expect(saved.created.userRecordName == f.alice.user.userRecordName)
            let (request, response) = try #require(recorder.exchanges.last)
            #expect(try Self.member("desiredKeys", of: request) == .array([]))
            // The server sent no field values back.
            guard case .array(let records) = try Self.member("records", of: response), case .object(let record) = records.first else {
                Issue.record("no record in the response")
                return
            }
            #expect(record["fields"] == .object([:]))
            #expect(try await database.record(named: "e1", in: notes).fields == fields)

            // A save that merges into the server's record gets it back whole.
            let merged = try await database.save(.note("e1", in: notes, ["count": .int64(4)]), savePolicy: .changedKeys)
            #expect(merged.fields == ["title": .string("kept"), "count": .int64(4)])
            let mergeRequest = try #require(recorder.exchanges.last).request
            #expect(try Self.member("desiredKeys", of: mergeRequest) == nil)
        }
    }

    /// Alice's private database over a transport that keeps every exchange.
    private static func recordedDatabase(of f: ClientFixture) -> (Database, RecordingTransport) {
        let recorder = RecordingTransport(over: f.transport)
        let container = Container(
            serverURL: f.url,
            identifier: ClientFixture.containerID,
            authentication: .apiToken(f.apiToken, webAuthToken: f.alice.webAuthToken),
            transport: recorder
        )
        return (container.privateCloudDatabase, recorder)
    }

    private static func member(_ name: String, of body: [UInt8]) throws -> JSONValue? {
        guard case .object(let members) = try JSONParser.parse(body) else { return nil }
        return members[name]
    }

    @Test("fetching reports each missing record as unknownItem and a missing zone as zoneNotFound")
    func fetchErrors() async throws {
        try await ClientFixture.with { f in
            let database = f.container(as: f.alice).privateCloudDatabase
            try await database.save(zones: [notes])
            _ = try await database.save(.note("here", in: notes))
            let results = try await database.records(named: ["here", "missing"], in: notes)
            #expect(try results["here"]?.get().recordID.recordName == "here")
            let missing = try #require(throws: NimbusError.self) { try results["missing"]?.get() }
            #expect(missing.code == .unknownItem)
            let missingZone = ZoneID(zoneName: "Nope", ownerRecordName: "")
            let error = try await #require(throws: NimbusError.self) { try await database.records(named: ["x"], in: missingZone) }
            #expect(error.code == .zoneNotFound)
        }
    }

    @Test("records whose names differ only in normalization come back as two results, each its own")
    func canonicallyEquivalentNames() async throws {
        try await ClientFixture.with { f in
            let database = f.container(as: f.alice).privateCloudDatabase
            try await database.save(zones: [notes])
            let composed = "Caf\u{E9}"
            let decomposed = "Cafe\u{301}"
            _ = try await database.save(.note(composed, in: notes, ["n": .int64(1)]))
            _ = try await database.save(.note(decomposed, in: notes, ["n": .int64(2)]))
            let results = try await database.records(named: [composed, decomposed], in: notes)
            #expect(results.count == 2)
            #expect(try results[NameKey(composed)]?.get().fields["n"] == .int64(1))
            #expect(try results[NameKey(decomposed)]?.get().fields["n"] == .int64(2))
            let ids = Set([composed, decomposed].map { RecordID(recordName: $0, zoneID: notes) })
            #expect(ids.count == 2, "record IDs compare by bytes")
        }
    }

    @Test("a non-atomic batch of 450 records is split into requests of 200 and its results merged")
    func splitsLargeBatches() async throws {
        try await ClientFixture.with { f in
            let database = f.container(as: f.alice).privateCloudDatabase
            try await database.save(zones: [notes])
            let records = (0..<450).map { Record.note("n\($0)", in: notes, ["index": .int64(Int64($0))]) }
            let result = try await database.modifyRecords(saving: records, atomically: false)
            #expect(result.saveResults.count == 450)
            #expect(result.saveResults.values.allSatisfy { (try? $0.get()) != nil })
            let fetched = try await database.records(named: records.map(\.recordID.recordName), in: notes)
            #expect(fetched.count == 450)
            #expect(try fetched["n449"]?.get().fields["index"] == .int64(449))
        }
    }

    @Test("records of several zones, interleaved, are saved and deleted in their own zones, one request per zone")
    func interleavedZones() async throws {
        try await ClientFixture.with { f in
            let (database, recorder) = Self.recordedDatabase(of: f)
            let drafts = ZoneID(zoneName: "Drafts", ownerRecordName: "")
            try await database.save(zones: [notes, drafts])
            _ = try await database.save(.note("old", in: drafts))
            let before = recorder.exchanges.count
            // The last record names its zone with the owner filled in, as the server returns it:
            // in the private database that is the same zone, and the same request.
            let draftsWithOwner = ZoneID(zoneName: "Drafts", ownerRecordName: f.alice.user.userRecordName)
            let records = (0..<6).map { index in
                Record.note("r\(index)", in: index.isMultiple(of: 2) ? notes : index == 5 ? draftsWithOwner : drafts, ["index": .int64(Int64(index))])
            }
            let old = RecordID(recordName: "old", zoneID: drafts)
            let result = try await database.modifyRecords(saving: records, deleting: [old], atomically: false)
            #expect(recorder.exchanges.count - before == 2)
            #expect(result.saveResults.count == 6)
            for record in records {
                #expect(try result.saveResults[record.recordID]?.get().recordID.zoneID.zoneName == record.recordID.zoneID.zoneName)
            }
            try #require(result.deleteResults[old]).get()
            let inNotes = try await database.records(named: records.map(\.recordID.recordName), in: notes)
            #expect(Set(inNotes.filter { (try? $0.value.get()) != nil }.keys) == ["r0", "r2", "r4"])
            let inDrafts = try await database.records(named: records.map(\.recordID.recordName) + ["old"], in: drafts)
            #expect(Set(inDrafts.filter { (try? $0.value.get()) != nil }.keys) == ["r1", "r3", "r5"])
        }
    }

    @Test("an atomic batch over the per-request limit fails with limitExceeded and writes nothing")
    func atomicBatchOverTheLimit() async throws {
        try await ClientFixture.with { f in
            let database = f.container(as: f.alice).privateCloudDatabase
            try await database.save(zones: [notes])
            let records = (0..<201).map { Record.note("n\($0)", in: notes) }
            let error = try await #require(throws: NimbusError.self) { try await database.modifyRecords(saving: records) }
            #expect(error.code == .limitExceeded)
            let fetched = try await database.records(named: ["n0", "n200"], in: notes)
            #expect(fetched.values.allSatisfy { (try? $0.get()) == nil })
        }
    }

    @Test("per-record failures of an atomic batch are results: the culprit's error, atomicFailure for the others")
    func atomicFailureResults() async throws {
        try await ClientFixture.with { f in
            let database = f.container(as: f.alice).privateCloudDatabase
            try await database.save(zones: [notes])
            _ = try await database.save(.note("taken", in: notes))
            let result = try await database.modifyRecords(saving: [.note("fresh", in: notes), .note("taken", in: notes)])
            let taken = RecordID(recordName: "taken", zoneID: notes)
            let fresh = RecordID(recordName: "fresh", zoneID: notes)
            #expect(throws: NimbusError.self) { try result.saveResults[taken]?.get() }
            let innocent = try #require(throws: NimbusError.self) { try result.saveResults[fresh]?.get() }
            #expect(innocent.code == .atomicFailure)
            #expect(try await database.records(named: ["fresh"], in: notes)["fresh"].map { (try? $0.get()) == nil } == true)
        }
    }

    @Test("deleting a record removes it; deleting it again is unknownItem")
    func deletes() async throws {
        try await ClientFixture.with { f in
            let database = f.container(as: f.alice).privateCloudDatabase
            try await database.save(zones: [notes])
            let saved = try await database.save(.note("n1", in: notes))
            try await database.deleteRecord(saved.recordID)
            let error = try await #require(throws: NimbusError.self) { try await database.record(named: "n1", in: notes) }
            #expect(error.code == .unknownItem)
            let again = try await #require(throws: NimbusError.self) { try await database.deleteRecord(saved.recordID) }
            #expect(again.code == .unknownItem)
        }
    }

    @Test("a bad API token is authenticationFailed; another user's private records stay invisible")
    func authentication() async throws {
        try await ClientFixture.with { f in
            let wrong = Container(
                serverURL: f.url,
                identifier: ClientFixture.containerID,
                authentication: .apiToken(String(repeating: "0", count: 64), webAuthToken: f.alice.webAuthToken),
                transport: f.transport
            )
            let error = try await #require(throws: NimbusError.self) { try await wrong.privateCloudDatabase.allZones() }
            #expect(error.code == .authenticationFailed)

            let alice = f.container(as: f.alice).privateCloudDatabase
            try await alice.save(zones: [notes])
            _ = try await alice.save(.note("secret", in: notes))
            let bob = f.container(as: f.bob).privateCloudDatabase
            let bobs = try await #require(throws: NimbusError.self) { try await bob.record(named: "secret", in: notes) }
            #expect(bobs.code == .zoneNotFound)
        }
    }
}

/// Sends over the fixture's route and keeps each request's and response's body.
private final class RecordingTransport: ClientTransport {
    private let base: any ClientTransport
    private let recorded = Mutex<[(request: [UInt8], response: [UInt8])]>([])

    init(over base: any ClientTransport) {
        self.base = base
    }

    var exchanges: [(request: [UInt8], response: [UInt8])] { recorded.withLock { $0 } }

    func send(_ request: ClientRequest) async throws -> ClientResponse {
        let response = try await base.send(request)
        recorded.withLock { $0.append((request.body, response.body)) }
        return response
    }
}
