//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusModel
import NimbusStore
import Synchronization
import Testing

@Suite("notification store conformance: the outbox and inboxes")
struct NotificationStoreConformanceTests {
    /// The outbox's events, taken in a transaction that then rolls back: they stay.
    private static func peek(_ store: any NotificationStore) async throws -> [ChangeEvent] {
        do {
            try await store.dispatch { transaction in throw Peeked(events: try await transaction.takeEvents(limit: 10).events) }
            return []
        } catch let peeked as Peeked {
            return peeked.events
        }
    }

    private struct Peeked: Error {
        var events: [ChangeEvent]
    }

    private static func draft(_ user: String, _ id: String) -> NotificationDraft {
        NotificationDraft(userRecordName: user, notificationID: id, originDeviceID: "device-1", payload: Array(#"{"ck":{"nid":"\#(id)"}}"#.utf8))
    }

    @Test("a write's change note waits in the outbox with the counters it spent until a dispatch that took it commits", arguments: StoreFactory.all)
    func outbox(factory: StoreFactory) async throws {
        try await factory.with { f in
            _ = try await f.store.createZone(named: "Z", of: f.tenant())
            try await f.save([f.record("gone", fields: ["v": .int64(7)])])
            #expect(try await !f.store.hasPendingEvents())
            let before = try await f.zone().changeCounter
            var deleted = f.record("gone", fields: ["v": .int64(7)])
            deleted.created = ChangeStamp(timestamp: 0, userRecordName: "")
            deleted.modified = deleted.created
            let note = ChangeNote(writer: StoreFixture.alice, deviceID: "device-1", created: ["a"], deleted: [deleted])
            let saved = try await f.store.write(zone: "Z", of: f.tenant()) { [deleted] transaction in
                let saved = try await transaction.save([f.record("a", fields: ["title": .string("A")])])
                try await transaction.delete([Tombstone(recordName: deleted.recordID.recordName, recordType: "Note")])
                try await transaction.recordChange(note)
                return saved[0]
            }
            #expect(try await f.store.hasPendingEvents())
            let through = try await f.zone().changeCounter

            // Taken by a transaction that then fails: still waiting.
            await #expect(throws: DeliberateFailure()) {
                try await f.store.dispatch { transaction in
                    #expect(try await transaction.takeEvents(limit: 10).events.count == 1)
                    throw DeliberateFailure()
                }
            }
            #expect(try await f.store.hasPendingEvents())
            let (events, rows, bare) = try await f.store.dispatch { transaction in
                let events = try await transaction.takeEvents(limit: 10).events
                guard let event = events.first else { return (events, ChangeEventRows?.none, ChangeEventRows?.none) }
                let rows = try await transaction.rows(of: event, decodingFields: true)
                let bare = try await transaction.rows(of: event, decodingFields: false)
                return (events, rows, bare)
            }
            #expect(events.count == 1)
            let event = try #require(events.first)
            #expect(event.tenant == f.tenant() && event.zoneName == "Z")
            #expect(event.counterFrom == before && event.counterThrough == through)
            #expect(event.note.writer == note.writer && event.note.deviceID == note.deviceID && event.note.created == note.created)
            #expect(event.note.deleted.map(\.recordID.recordName) == ["gone"])
            #expect(event.note.deleted.first?.fields == ["v": .int64(7)])
            #expect(!event.note.zoneDeleted)
            #expect(rows?.saved == [saved])
            #expect(rows?.deleted.map(\.tombstone) == [Tombstone(recordName: "gone", recordType: "Note")])
            #expect(bare?.saved.map(\.recordID.recordName) == ["a"])
            #expect(bare?.saved.first?.fields.isEmpty == true)
            // Taken by a transaction that committed: gone.
            #expect(try await !f.store.hasPendingEvents())
            #expect(try await f.store.dispatch { try await $0.takeEvents(limit: 10) }.events.isEmpty)
        }
    }

    @Test("finishing several events removes exactly those, across zones, and leaves the rest waiting", arguments: StoreFactory.all)
    func finishSeveral(factory: StoreFactory) async throws {
        try await factory.with { f in
            for zone in ["Z", "Y"] { _ = try await f.store.createZone(named: zone, of: f.tenant()) }
            for (zone, name) in [("Z", "a"), ("Y", "b"), ("Z", "c"), ("Z", "d")] {
                let note = ChangeNote(writer: StoreFixture.alice, deviceID: nil, created: [NameKey(name)], deleted: [])
                try await f.store.write(zone: zone, of: f.tenant()) { transaction in
                    _ = try await transaction.save([f.record(name, in: zone)])
                    try await transaction.recordChange(note)
                }
            }
            // Seen by a transaction that rolls back, so none is taken.
            let events = try await Self.peek(f.store)
            // Two writes may share a millisecond: their order is the clock's, not the test's.
            #expect(events.map(\.zoneName).sorted() == ["Y", "Z", "Z", "Z"])
            let kept = try #require(events.last)
            try await f.store.dispatch { try await $0.finish(Array(events.dropLast())) }
            let left = try await f.store.dispatch { try await $0.takeEvents(limit: 10) }.events
            #expect(left.map { "\($0.zoneName)/\($0.counterThrough)" } == ["\(kept.zoneName)/\(kept.counterThrough)"])
        }
    }

    @Test(
        "a save that records the change leaves one outbox row over every counter its transaction spent, its records in several statements or none",
        arguments: StoreFactory.all
    )
    func saveRecordingChange(factory: StoreFactory) async throws {
        try await factory.with { f in
            _ = try await f.store.createZone(named: "Z", of: f.tenant())
            try await f.save([f.record("gone")])
            let before = try await f.zone().changeCounter
            // More records than one INSERT takes: the row must cover the counters of every one.
            let names = (0..<150).map { "r\($0)" }
            let note = ChangeNote(writer: StoreFixture.alice, deviceID: "device-1", created: Set(names.map { NameKey($0) }), deleted: [])
            let saved = try await f.store.write(zone: "Z", of: f.tenant()) { transaction in
                try await transaction.delete([Tombstone(recordName: "gone", recordType: "Note")])
                return try await transaction.save(names.map { f.record($0) }, recordingChange: note)
            }
            let through = try await f.zone().changeCounter
            #expect(through == before + 151)
            #expect(saved.map(\.recordChangeTag) == (before + 2...through).map { String($0, radix: 36) })
            let events = try await f.store.dispatch { try await $0.takeEvents(limit: 10) }.events
            #expect(events.map { "\($0.zoneName) \($0.counterFrom)...\($0.counterThrough)" } == ["Z \(before)...\(through)"])
            #expect(events.first?.note.created == note.created && events.first?.note.deviceID == "device-1")

            // No records to save: the deletion before it is still recorded.
            try await f.store.write(zone: "Z", of: f.tenant()) { transaction in
                try await transaction.delete([Tombstone(recordName: "r0", recordType: "Note")])
                _ = try await transaction.save([], recordingChange: note)
            }
            let deletion = try await f.store.dispatch { try await $0.takeEvents(limit: 10) }.events
            #expect(deletion.map { "\($0.counterFrom)...\($0.counterThrough)" } == ["\(through)...\(through + 1)"])
        }
    }

    @Test("no event is left by a transaction that changed nothing, or by one that failed", arguments: StoreFactory.all)
    func noEvent(factory: StoreFactory) async throws {
        try await factory.with { f in
            _ = try await f.store.createZone(named: "Z", of: f.tenant())
            let note = ChangeNote(writer: StoreFixture.alice, deviceID: nil, created: [], deleted: [])
            try await f.store.write(zone: "Z", of: f.tenant()) { try await $0.recordChange(note) }
            #expect(try await !f.store.hasPendingEvents())
            await #expect(throws: DeliberateFailure()) {
                try await f.store.write(zone: "Z", of: f.tenant()) { transaction in
                    _ = try await transaction.save([f.record("a")])
                    try await transaction.recordChange(note)
                    throw DeliberateFailure()
                }
            }
            #expect(try await !f.store.hasPendingEvents())
        }
    }

    @Test("a zone deletion hands the notice its shares with every participant, and the note it makes reaches the outbox", arguments: StoreFactory.all)
    func zoneDeletion(factory: StoreFactory) async throws {
        try await factory.with { f in
            let share = try await f.makeRecordShare()
            let handed = Mutex<[Share]>([])
            let deleted = try await f.store.deleteZone(named: "Z", of: f.tenant()) { shares in
                handed.withLock { $0 = shares }
                return ChangeNote(writer: "the-engine", deviceID: nil, created: [], deleted: [], zoneDeleted: true, formerParticipants: ["chosen"])
            }
            #expect(deleted)
            #expect(handed.withLock { $0 } == [share])
            let events = try await f.store.dispatch { try await $0.takeEvents(limit: 10) }.events
            #expect(events.map(\.zoneName) == ["Z"])
            #expect(events.first?.note.writer == "the-engine")
            #expect(events.first?.note.zoneDeleted == true)
            #expect(events.first?.note.formerParticipants == ["chosen"])
        }
    }

    @Test(
        "the commit hook fires once a write that recorded a change commits, and not for one that failed or changed nothing",
        arguments: StoreFactory.all
    )
    func commitHook(factory: StoreFactory) async throws {
        try await factory.with { f in
            let hook = f.store.changeCommitted
            _ = try await f.store.createZone(named: "Z", of: f.tenant())
            // A write that changed nothing, and one that failed, leave the hook unfired: the
            // write that follows proves it, as the first wait would otherwise return at once.
            try await f.store.write(zone: "Z", of: f.tenant()) { try await $0.recordChange(Self.note) }
            await #expect(throws: DeliberateFailure.self) {
                try await f.store.write(zone: "Z", of: f.tenant()) { transaction in
                    _ = try await transaction.save([f.record("failed")])
                    try await transaction.recordChange(Self.note)
                    throw DeliberateFailure()
                }
            }
            #expect(!hook.isPending)
            try await f.store.write(zone: "Z", of: f.tenant()) { transaction in
                _ = try await transaction.save([f.record("n1")])
                try await transaction.recordChange(Self.note)
            }
            #expect(hook.isPending)
            await hook.wait()
            #expect(try await f.deleteZone("Z"))
            #expect(hook.isPending)
        }
    }

    private static let note = ChangeNote(writer: StoreFixture.alice, deviceID: nil, created: [], deleted: [])

    @Test("delivered notifications are numbered per recipient without gaps, and read back in pages", arguments: StoreFactory.all)
    func inboxes(factory: StoreFactory) async throws {
        try await factory.with { f in
            let container = StoreFixture.development
            #expect(try await f.store.lastSequence(of: StoreFixture.alice, in: container) == 0)
            let drafts = [Self.draft(StoreFixture.alice, "n1"), Self.draft(StoreFixture.bob, "n2"), Self.draft(StoreFixture.alice, "n3")]
            let entries = try await f.store.dispatch { try await $0.deliver(drafts, in: container) }
            #expect(entries.map(\.sequence) == [1, 1, 2])
            #expect(entries.map(\.notificationID) == ["n1", "n2", "n3"])
            let more = try await f.store.dispatch { try await $0.deliver([Self.draft(StoreFixture.alice, "n4")], in: container) }
            #expect(more.map(\.sequence) == [3])
            #expect(try await f.store.lastSequence(of: StoreFixture.alice, in: container) == 3)
            #expect(try await f.store.lastSequence(of: StoreFixture.bob, in: container) == 1)

            let inbox = try await f.store.inbox(of: StoreFixture.alice, in: container, after: 0, limit: 10)
            #expect(inbox == [entries[0], entries[2], more[0]])
            #expect(inbox.first?.payload == drafts[0].payload && inbox.first?.originDeviceID == "device-1")
            #expect(try await f.store.inbox(of: StoreFixture.alice, in: container, after: 1, limit: 1).map(\.notificationID) == ["n3"])
            let production = ContainerEnvironment(container: StoreFixture.container, environment: .production)
            #expect(try await f.store.inbox(of: StoreFixture.alice, in: production, after: 0, limit: 10).isEmpty)

            // A dispatch that fails delivers nothing and spends no numbers.
            await #expect(throws: DeliberateFailure()) {
                try await f.store.dispatch { transaction in
                    _ = try await transaction.deliver([Self.draft(StoreFixture.alice, "lost")], in: container)
                    throw DeliberateFailure()
                }
            }
            #expect(try await f.store.lastSequence(of: StoreFixture.alice, in: container) == 3)
            #expect(try await f.store.inbox(of: StoreFixture.alice, in: container, after: 3, limit: 10).isEmpty)
        }
    }

    @Test("pruning inboxes removes older entries; numbering goes on after them", arguments: StoreFactory.all)
    func pruneInboxes(factory: StoreFactory) async throws {
        try await factory.with { f in
            let container = StoreFixture.development
            _ = try await f.store.dispatch { try await $0.deliver([Self.draft(StoreFixture.alice, "old")], in: container) }
            f.clock.advance(by: .milliseconds(60_000))
            let cutoff = f.clock.milliseconds
            _ = try await f.store.dispatch { try await $0.deliver([Self.draft(StoreFixture.alice, "new")], in: container) }
            #expect(try await f.store.pruneInboxes(before: cutoff) == 1)
            #expect(try await f.store.inbox(of: StoreFixture.alice, in: container, after: 0, limit: 10).map(\.notificationID) == ["new"])
            #expect(try await f.store.pruneInboxes(before: cutoff) == 0)
            let next = try await f.store.dispatch { try await $0.deliver([Self.draft(StoreFixture.alice, "next")], in: container) }
            #expect(next.map(\.sequence) == [3])
        }
    }

    @Test("a dispatch reads a zone's participants, users' subscriptions and live records", arguments: StoreFactory.all)
    func dispatchReads(factory: StoreFactory) async throws {
        try await factory.with { f in
            _ = try await f.makeRecordShare()
            let subscription = Subscription(subscriptionID: "zone-z", kind: .zone(ZoneID(zoneName: "Z", ownerRecordName: StoreFixture.alice)))
            let subscriber = Subscriber(
                container: StoreFixture.container,
                environment: .development,
                scope: .private,
                userRecordName: StoreFixture.alice
            )
            _ = try await f.store.modifySubscriptions([.save(subscription)], of: subscriber)
            let (participants, subscriptions, records) = try await f.store.dispatch { transaction in
                (
                    try await transaction.participants(
                        ofZones: [OwnedZone(owner: StoreFixture.alice, zoneName: "Z")],
                        in: StoreFixture.development
                    ),
                    try await transaction.subscriptions(of: [StoreFixture.alice, StoreFixture.bob], scope: .private, in: StoreFixture.development),
                    try await transaction.records(named: ["root", "absent"], inZone: "Z", of: f.tenant())
                )
            }
            let bob = ZoneParticipant(userRecordName: StoreFixture.bob, shareName: "share-1")
            #expect(participants == [OwnedZone(owner: StoreFixture.alice, zoneName: "Z"): [bob]])
            #expect(subscriptions.map(\.userRecordName) == [StoreFixture.alice])
            #expect(subscriptions.map(\.subscription) == [subscription])
            #expect(Set(records.keys) == ["root"])
            // Zones of several owners at once: Alice's Z is not among these, though both its
            // owner and its name are.
            let elsewhere = try await f.store.dispatch { transaction in
                try await transaction.participants(
                    ofZones: [OwnedZone(owner: StoreFixture.alice, zoneName: "Y"), OwnedZone(owner: StoreFixture.bob, zoneName: "Z")],
                    in: StoreFixture.development
                )
            }
            #expect(elsewhere.isEmpty)
            // A subscription that fired once is removed in the dispatch.
            try await f.store.dispatch { try await $0.deleteSubscription("zone-z", of: subscriber) }
            #expect(try await f.store.subscriptions(of: subscriber).isEmpty)
        }
    }
}
