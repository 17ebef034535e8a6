//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusEngine
import NimbusModel
import Testing

/// Names are compared by their bytes, as the stores compare them: canonically equivalent
/// spellings (`Café` composed and decomposed, `Key` and `\u{212A}ey` with the Kelvin sign)
/// are different names everywhere.
@Suite("names compare by bytes: canonically equivalent spellings stay apart")
struct NameBytesTests {
    static let composed = "Caf\u{E9}"
    static let decomposed = "Cafe\u{301}"
    static let kelvin = "\u{212A}ey"

    @Test("two records whose names differ only in normalization are two records, in one batch and in a lookup")
    func recordNames() async throws {
        try await EngineFixture.with { f in
            try await f.makeZone("Notes", for: f.alice)
            let saved = try await f.modify([
                .note(Self.composed, ["n": .int64(1)]), .note(Self.decomposed, ["n": .int64(2)]), .note("Key", ["n": .int64(3)]),
                .note(Self.kelvin, ["n": .int64(4)]),
            ])
            #expect(saved.allSatisfy { $0.error == nil }, "\(saved)")
            let found = try await f.database.lookupRecords(
                named: [Self.decomposed, Self.composed, Self.kelvin, "Key"],
                inZone: ZoneID(zoneName: "Notes", ownerRecordName: ""),
                access: f.access(f.alice)
            )
            let values = try found.map { try $0.get().fields["n"] }
            #expect(values == [.int64(2), .int64(1), .int64(4), .int64(3)])
            let names = try found.map { try $0.get().recordID.recordName.unicodeScalars.map(\.value) }
            #expect(names == [Self.decomposed, Self.composed, Self.kelvin, "Key"].map { $0.unicodeScalars.map(\.value) })
        }
    }

    @Test("a field name that is canonically equivalent to another is refused, not merged into it")
    func fieldNames() async throws {
        try await EngineFixture.with { f in
            try await f.makeZone("Notes", for: f.alice)
            // Field names are ASCII, so the Kelvin sign's spelling of "Key" is not a field name:
            // the save is refused whole instead of keeping one of the two values.
            let results = try await f.modify([.note("n1", ["Key": .string("plain K"), NameKey(Self.kelvin): .int64(7)])])
            #expect(results.first?.error?.code == .badRequest, "\(results)")
            #expect(try await f.lookup("n1") == nil)
        }
    }

    @Test("a deletion of one spelling leaves the other")
    func deleteOne() async throws {
        try await EngineFixture.with { f in
            try await f.makeZone("Notes", for: f.alice)
            _ = try await f.modify([.note(Self.composed), .note(Self.decomposed)])
            let deleted = try await f.modify([RecordOperation(kind: .forceDelete, recordName: Self.composed)])
            #expect(deleted.first?.error == nil)
            #expect(try await f.lookup(Self.composed) == nil)
            #expect(try await f.lookup(Self.decomposed)?.recordID.recordName.isSameName(as: Self.decomposed) == true)
        }
    }

    @Test("two shares whose names differ only in normalization are two shares: a participant of one cannot read the other")
    func shareNames() async throws {
        try await EngineFixture.with { f in
            try await f.makeZone("Notes", for: f.alice)
            _ = try await f.modify([.note("r1"), .note("r2"), .note("c1", kind: .create), .note("c2")])
            _ = try await f.modify([
                RecordOperation(kind: .forceUpdate, recordName: "c1", parent: .set("r1")),
                RecordOperation(kind: .forceUpdate, recordName: "c2", parent: .set("r2")),
            ])
            var guids: [String] = []
            for (name, root) in [(Self.composed, "r1"), (Self.decomposed, "r2")] {
                let results = try await f.modify([
                    RecordOperation(
                        kind: .create,
                        recordName: name,
                        recordType: Share.recordType,
                        share: ShareChange(
                            rootRecordName: root,
                            participants: root == "r1" ? [ParticipantInput(lookupInfo: .userRecordName(f.bob))] : []
                        )
                    )
                ])
                #expect(results.first?.error == nil, "\(results)")
                guids.append(try #require(results.first?.record?.shareDetails?.share.shortGUID))
            }
            _ = try await f.database.acceptShares([ShareLookup(shortGUID: guids[0])], access: f.access(f.bob))
            let found = try await f.database.lookupRecords(
                named: ["r1", "c1", "r2", "c2"],
                inZone: ZoneID(zoneName: "Notes", ownerRecordName: f.alice),
                access: f.access(f.bob, .shared)
            )
            #expect(found.map { (try? $0.get()) != nil } == [true, true, false, false])
        }
    }

    @Test("a write that creates one spelling and updates the other notifies one creation and one update")
    func notificationReasons() async throws {
        try await EngineFixture.with { f in
            let dispatcher = NotificationTests.dispatcher(f)
            try await f.makeZone("Notes", for: f.alice)
            _ = try await f.modify([.note(Self.composed)])
            _ = try await NotificationTests.dispatch(dispatcher)
            try await NotificationTests.subscribe(
                f,
                f.alice,
                .private,
                Subscription(
                    subscriptionID: "notes",
                    kind: .query(
                        Query(recordType: "Note"),
                        zoneID: ZoneID(zoneName: "Notes", ownerRecordName: f.alice),
                        firesOn: [.create, .update],
                        firesOnce: false
                    )
                )
            )
            _ = try await f.modify([.note(Self.decomposed), .note(Self.composed, ["n": .int64(1)], kind: .forceUpdate)])
            let received = try await NotificationTests.dispatch(dispatcher)
            // Read as scalars and pairs: a [String: Int] would merge the two names itself.
            let changes = (received.first?.ck["nimbus"] as? [String: Any])?["changes"] as? [[String: Any]] ?? []
            let reasons = changes.compactMap { change -> ([UInt32], Int)? in
                guard let name = change["rid"] as? String, let reason = change["fo"] as? Int else { return nil }
                return (name.unicodeScalars.map(\.value), reason)
            }
            // CKQueryNotification reasons: 1 created, 2 updated.
            let expected = [(Self.decomposed, 1), (Self.composed, 2)].map { ($0.0.unicodeScalars.map(\.value), $0.1) }
            #expect(reasons.count == 2, "\(reasons)")
            for (name, reason) in expected { #expect(reasons.contains { $0.0 == name && $0.1 == reason }, "\(reasons)") }
        }
    }
}
