//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Foundation
import Logging
import NimbusEngine
import NimbusModel
import NimbusStore
import Testing

/// Subscriptions and the notifications a write produces: who gets one, for what, how many.
/// A shared chat as in the demo app: Alice owns `Chats`, shares `chat` with Bob.
@Suite("notifications: subscriptions, fan-out and coalescing")
struct NotificationTests {
    /// A notification as a test reads it.
    struct Received {
        var user: String
        var sequence: Int64
        var id: String
        var ck: [String: Any]
        var aps: [String: Any]?

        var subscriptionID: String? {
            for key in ["qry", "fet", "met"] {
                if let body = ck[key] as? [String: Any] { return body["sid"] as? String }
            }
            return nil
        }

        /// Record names listed in `ck.nimbus.changes`.
        var changedRecords: [String] {
            ((ck["nimbus"] as? [String: Any])?["changes"] as? [[String: Any]] ?? []).compactMap { $0["rid"] as? String }
        }

        var reasons: [String: Int] {
            var reasons: [String: Int] = [:]
            for change in (ck["nimbus"] as? [String: Any])?["changes"] as? [[String: Any]] ?? [] {
                if let name = change["rid"] as? String, let reason = change["fo"] as? Int { reasons[name] = reason }
            }
            return reasons
        }
    }

    static func dispatcher(_ f: EngineFixture) -> NotificationDispatcher {
        let ids = SequentialNames()
        return NotificationDispatcher(
            store: f.store,
            signal: f.database.changeSignal,
            hub: NotificationHub(),
            makeID: { "n-" + ids.make() },
            clock: f.clock,
            logger: Logger(label: "test")
        )
    }

    static func dispatch(_ dispatcher: NotificationDispatcher) async throws -> [Received] {
        try await dispatcher.dispatchPending().map { entry in
            let object = try JSONSerialization.jsonObject(with: Data(entry.payload)) as? [String: Any] ?? [:]
            return Received(
                user: entry.userRecordName,
                sequence: entry.sequence,
                id: entry.notificationID,
                ck: object["ck"] as? [String: Any] ?? [:],
                aps: object["aps"] as? [String: Any]
            )
        }
    }

    static func subscribe(_ f: EngineFixture, _ user: String, _ scope: DatabaseScope, _ subscription: Subscription) async throws {
        let results = try await f.database.modifySubscriptions([.create(subscription)], access: f.access(user, scope))
        guard case .saved = results.first else { throw FixtureError("not subscribed: \(results)") }
    }

    /// Alice's chat `chat` shared read-write with Bob (accepted), with one message `m1`.
    static func sharedChat(_ f: EngineFixture) async throws {
        try await f.makeZone("Chats", for: f.alice)
        _ = try await f.modify(
            [
                RecordOperation(kind: .create, recordName: "chat", recordType: "Chat"),
                RecordOperation(
                    kind: .create,
                    recordName: "m1",
                    recordType: "Message",
                    fields: ["text": FieldInput(.string("hi"))],
                    parent: .set("chat")
                ),
                RecordOperation(kind: .create, recordName: "private-note", recordType: "Message"),
            ],
            zone: "Chats"
        )
        try await SharedSyncConvergenceTests.share("chat", f)
    }

    static var chats: ZoneID { ZoneID(zoneName: "Chats", ownerRecordName: "") }

    @Test("a message saved with a reaction in one request is one notification per subscription, listing both")
    func coalescesOneRequest() async throws {
        try await EngineFixture.with { f in
            let dispatcher = Self.dispatcher(f)
            try await Self.sharedChat(f)
            try await Self.subscribe(f, f.bob, .shared, Subscription(subscriptionID: "db", kind: .database))
            try await Self.subscribe(f, f.alice, .private, Subscription(subscriptionID: "db", kind: .database))
            _ = try await Self.dispatch(dispatcher)

            // Bob reacts: the reaction and its message's update, in one request of his.
            let results = try await f.database.modifyRecords(
                [
                    RecordOperation(kind: .create, recordName: "r1", recordType: "Reaction", parent: .set("m1")),
                    RecordOperation(kind: .forceUpdate, recordName: "m1", fields: ["reactions": FieldInput(.int64(1))]),
                ],
                inZone: ZoneID(zoneName: "Chats", ownerRecordName: f.alice),
                atomic: true,
                access: f.access(f.bob, .shared)
            )
            #expect(results.allSatisfy { if case .saved = $0 { true } else { false } })
            let received = try await Self.dispatch(dispatcher)
            #expect(received.count == 2, "one for Alice's database subscription, one for Bob's: \(received.map(\.user))")
            for notification in received {
                #expect(Set(notification.changedRecords) == ["r1", "m1"])
                #expect(notification.reasons == ["r1": 1, "m1": 2])
            }
            #expect(Set(received.map(\.user)) == [f.alice, f.bob])
            #expect(received.first { $0.user == f.bob }?.ck["met"] as? [String: Any] != nil)
        }
    }

    @Test("a participant's subscriptions see only the records they may read; the owner's see everything")
    func participantsSeeOnlyTheirShares() async throws {
        try await EngineFixture.with { f in
            let dispatcher = Self.dispatcher(f)
            try await Self.sharedChat(f)
            let messages = Query(recordType: "Message")
            try await Self.subscribe(
                f,
                f.bob,
                .shared,
                Subscription(
                    subscriptionID: "messages",
                    kind: .query(messages, zoneID: nil, firesOn: Set(Subscription.FiresOn.allCases), firesOnce: false)
                )
            )
            try await Self.subscribe(
                f,
                f.alice,
                .private,
                Subscription(
                    subscriptionID: "messages",
                    kind: .query(messages, zoneID: nil, firesOn: Set(Subscription.FiresOn.allCases), firesOnce: false)
                )
            )
            _ = try await Self.dispatch(dispatcher)

            // Outside the share: Alice only.
            _ = try await f.modify(
                [RecordOperation(kind: .forceUpdate, recordName: "private-note", fields: ["text": FieldInput(.string("secret"))])],
                zone: "Chats"
            )
            var received = try await Self.dispatch(dispatcher)
            #expect(received.map(\.user) == [f.alice])

            // Inside it: both.
            _ = try await f.modify([RecordOperation(kind: .create, recordName: "m2", recordType: "Message", parent: .set("chat"))], zone: "Chats")
            received = try await Self.dispatch(dispatcher)
            #expect(Set(received.map(\.user)) == [f.alice, f.bob])
            #expect(received.allSatisfy { $0.changedRecords == ["m2"] && $0.reasons["m2"] == 1 })

            // Moved out of the share: a deletion for Bob, an update for Alice.
            _ = try await f.modify([RecordOperation(kind: .forceUpdate, recordName: "m2", parent: .clear)], zone: "Chats")
            received = try await Self.dispatch(dispatcher)
            #expect(received.first { $0.user == f.bob }?.reasons == ["m2": 3])
            #expect(received.first { $0.user == f.alice }?.reasons == ["m2": 2])
        }
    }

    @Test("query subscriptions match filters and firesOn; firesOnce fires once and is gone")
    func queryFiltersAndFiresOnce() async throws {
        try await EngineFixture.with { f in
            let dispatcher = Self.dispatcher(f)
            try await Self.sharedChat(f)
            let urgent = Query(recordType: "Message", filters: [Filter("priority", .greaterThanOrEquals, .int64(5))])
            try await Self.subscribe(
                f,
                f.bob,
                .shared,
                Subscription(subscriptionID: "urgent-created", kind: .query(urgent, zoneID: nil, firesOn: [.create], firesOnce: false))
            )
            try await Self.subscribe(
                f,
                f.bob,
                .shared,
                Subscription(
                    subscriptionID: "first-deletion",
                    kind: .query(Query(recordType: "Message"), zoneID: nil, firesOn: [.delete], firesOnce: true)
                )
            )
            _ = try await Self.dispatch(dispatcher)

            _ = try await f.modify(
                [
                    RecordOperation(
                        kind: .create,
                        recordName: "low",
                        recordType: "Message",
                        fields: ["priority": FieldInput(.int64(1))],
                        parent: .set("chat")
                    ),
                    RecordOperation(
                        kind: .create,
                        recordName: "high",
                        recordType: "Message",
                        fields: ["priority": FieldInput(.int64(9))],
                        parent: .set("chat")
                    ),
                ],
                zone: "Chats"
            )
            var received = try await Self.dispatch(dispatcher)
            #expect(received.map(\.subscriptionID) == ["urgent-created"])
            #expect(received.first?.changedRecords == ["high"])
            // An update of a matching record is not a creation.
            _ = try await f.modify(
                [RecordOperation(kind: .forceUpdate, recordName: "high", fields: ["priority": FieldInput(.int64(10))])],
                zone: "Chats"
            )
            #expect(try await Self.dispatch(dispatcher).isEmpty)

            _ = try await f.modify([RecordOperation(kind: .forceDelete, recordName: "low")], zone: "Chats")
            received = try await Self.dispatch(dispatcher)
            #expect(received.map(\.subscriptionID) == ["first-deletion"])
            _ = try await f.modify([RecordOperation(kind: .forceDelete, recordName: "high")], zone: "Chats")
            #expect(try await Self.dispatch(dispatcher).isEmpty, "firesOnce fired twice")
            let left = try await f.database.subscriptions(access: f.access(f.bob, .shared))
            #expect(left.map(\.subscriptionID) == ["urgent-created"])
        }
    }

    @Test("firesOnce fires once when two matching changes wait for the same dispatch")
    func firesOnceWithinOneBatch() async throws {
        try await EngineFixture.with { f in
            let dispatcher = Self.dispatcher(f)
            try await f.makeZone("Chats", for: f.alice)
            try await Self.subscribe(
                f,
                f.alice,
                .private,
                Subscription(
                    subscriptionID: "first",
                    kind: .query(Query(recordType: "Message"), zoneID: Self.chats, firesOn: [.create], firesOnce: true)
                )
            )
            _ = try await Self.dispatch(dispatcher)
            for name in ["m1", "m2"] {
                _ = try await f.modify([RecordOperation(kind: .create, recordName: name, recordType: "Message")], zone: "Chats")
            }
            let received = try await Self.dispatch(dispatcher)
            #expect(received.map(\.changedRecords) == [["m1"]], "firesOnce fired twice in one batch")
            #expect(try await f.database.subscriptions(access: f.access(f.alice, .private)).isEmpty)
        }
    }

    @Test("a record created and changed again before the dispatcher runs is still reported created")
    func creationThenUpdateBeforeDispatch() async throws {
        try await EngineFixture.with { f in
            let dispatcher = Self.dispatcher(f)
            try await f.makeZone("Chats", for: f.alice)
            try await Self.subscribe(
                f,
                f.alice,
                .private,
                Subscription(
                    subscriptionID: "new",
                    kind: .query(Query(recordType: "Message"), zoneID: Self.chats, firesOn: [.create], firesOnce: false)
                )
            )
            _ = try await f.modify([RecordOperation(kind: .create, recordName: "m", recordType: "Message")], zone: "Chats")
            _ = try await f.modify(
                [RecordOperation(kind: .forceUpdate, recordName: "m", fields: ["text": FieldInput(.string("edited"))])],
                zone: "Chats"
            )
            let received = try await Self.dispatch(dispatcher)
            #expect(received.map(\.subscriptionID) == ["new"])
            #expect(received.first?.reasons == ["m": 1])
        }
    }

    @Test("sequence numbers count up per recipient without gaps; the writer's device is recorded")
    func sequencesAndOrigin() async throws {
        try await EngineFixture.with { f in
            let dispatcher = Self.dispatcher(f)
            try await Self.sharedChat(f)
            _ = try await Self.dispatch(dispatcher)
            try await Self.subscribe(
                f,
                f.bob,
                .shared,
                Subscription(subscriptionID: "chat", kind: .zone(ZoneID(zoneName: "Chats", ownerRecordName: f.alice)))
            )
            try await Self.subscribe(f, f.bob, .shared, Subscription(subscriptionID: "db", kind: .database))
            var access = f.access(f.alice)
            access.caller.deviceID = "alice-phone"
            for index in 0..<3 {
                _ = try await f.database.modifyRecords(
                    [RecordOperation(kind: .create, recordName: "x\(index)", recordType: "Message", parent: .set("chat"))],
                    inZone: Self.chats,
                    atomic: true,
                    access: access
                )
            }
            let received = try await Self.dispatch(dispatcher)
            #expect(received.map(\.sequence) == [1, 2, 3, 4, 5, 6])
            #expect(Set(received.map(\.id)).count == 6)
            let inbox = try await dispatcher.inbox(
                of: f.bob,
                in: ContainerEnvironment(container: EngineFixture.container, environment: .development),
                after: 4,
                limit: 10
            )
            #expect(inbox.map(\.sequence) == [5, 6])
            #expect(inbox.allSatisfy { $0.originDeviceID == "alice-phone" })
        }
    }

    @Test("notificationInfo becomes the aps dictionary; a silent subscription has only content-available")
    func apsFromNotificationInfo() async throws {
        try await EngineFixture.with { f in
            let dispatcher = Self.dispatcher(f)
            try await f.makeZone("Chats", for: f.alice)
            let visible = NotificationInfo(alertBody: "New message", soundName: "default", shouldBadge: true, desiredKeys: ["text"])
            try await Self.subscribe(
                f,
                f.alice,
                .private,
                Subscription(
                    subscriptionID: "visible",
                    kind: .query(Query(recordType: "Message"), zoneID: Self.chats, firesOn: [.create], firesOnce: false),
                    notificationInfo: visible
                )
            )
            try await Self.subscribe(
                f,
                f.alice,
                .private,
                Subscription(subscriptionID: "silent", kind: .zone(Self.chats), notificationInfo: NotificationInfo(shouldSendContentAvailable: true))
            )
            _ = try await f.modify(
                [RecordOperation(kind: .create, recordName: "m", recordType: "Message", fields: ["text": FieldInput(.string("hello"))])],
                zone: "Chats"
            )
            let received = try await Self.dispatch(dispatcher)
            let loud = try #require(received.first { $0.subscriptionID == "visible" })
            #expect((loud.aps?["alert"] as? [String: Any])?["body"] as? String == "New message")
            #expect(loud.aps?["sound"] as? String == "default")
            #expect(loud.aps?["badge"] as? Int == 1)
            let query = try #require(loud.ck["qry"] as? [String: Any])
            #expect(query["rid"] as? String == "m")
            #expect(query["fo"] as? Int == 1)
            #expect(query["dbs"] as? Int == 2)
            #expect(((query["af"] as? [String: Any])?["text"] as? [String: Any])?["value"] as? String == "hello")
            let quiet = try #require(received.first { $0.subscriptionID == "silent" })
            #expect(quiet.aps?.keys.sorted() == ["content-available"])
            #expect(quiet.ck["fet"] as? [String: Any] != nil)
        }
    }

    @Test("public query subscriptions fire for any user's matching records")
    func publicQuery() async throws {
        try await EngineFixture.with { f in
            let dispatcher = Self.dispatcher(f)
            let query = Query(recordType: "Post", filters: [Filter("tag", .equals, .string("swift"))])
            try await Self.subscribe(
                f,
                f.bob,
                .public,
                Subscription(subscriptionID: "swift-posts", kind: .query(query, zoneID: nil, firesOn: [.create, .update], firesOnce: false))
            )
            _ = try await f.database.modifyRecords(
                [
                    RecordOperation(kind: .create, recordName: "p1", recordType: "Post", fields: ["tag": FieldInput(.string("swift"))]),
                    RecordOperation(kind: .create, recordName: "p2", recordType: "Post", fields: ["tag": FieldInput(.string("rust"))]),
                ],
                inZone: nil,
                atomic: false,
                access: f.access(f.alice, .public)
            )
            let received = try await Self.dispatch(dispatcher)
            #expect(received.map(\.user) == [f.bob])
            #expect(received.first?.changedRecords == ["p1"])
            #expect((received.first?.ck["qry"] as? [String: Any])?["dbs"] as? Int == 1)
        }
    }

    @Test("deleting a zone notifies the owner's and the former participants' database and zone subscriptions")
    func zoneDeletion() async throws {
        try await EngineFixture.with { f in
            let dispatcher = Self.dispatcher(f)
            try await Self.sharedChat(f)
            try await Self.subscribe(f, f.bob, .shared, Subscription(subscriptionID: "db", kind: .database))
            try await Self.subscribe(
                f,
                f.bob,
                .shared,
                Subscription(
                    subscriptionID: "messages",
                    kind: .query(Query(recordType: "Message"), zoneID: nil, firesOn: [.delete], firesOnce: false)
                )
            )
            try await Self.subscribe(f, f.alice, .private, Subscription(subscriptionID: "chats", kind: .zone(Self.chats)))
            _ = try await Self.dispatch(dispatcher)
            let results = try await f.database.modifyZones([.delete(Self.chats)], access: f.access(f.alice))
            guard case .deleted = results.first else { Issue.record("zone not deleted: \(results)"); return }
            let received = try await Self.dispatch(dispatcher)
            #expect(Set(received.map { "\($0.user == f.alice ? "alice" : "bob")/\($0.subscriptionID ?? "")" }) == ["alice/chats", "bob/db"])
            for notification in received {
                #expect((notification.ck["nimbus"] as? [String: Any])?["zoneDeleted"] as? Bool == true)
            }
        }
    }

    @Test("joining, leaving and being removed from a share notify the participant's database subscription")
    func membershipChanges() async throws {
        try await EngineFixture.with { f in
            let dispatcher = Self.dispatcher(f)
            try await Self.subscribe(f, f.bob, .shared, Subscription(subscriptionID: "db", kind: .database))
            try await Self.subscribe(f, f.alice, .private, Subscription(subscriptionID: "mine", kind: .database))
            // Sharing and accepting: Bob's shared database gains the zone.
            try await Self.sharedChat(f)
            var received = try await Self.dispatch(dispatcher)
            let joined = try #require(received.last { $0.user == f.bob }, "Bob heard nothing of joining: \(received.map(\.user))")
            #expect(joined.subscriptionID == "db" && joined.ck["met"] != nil)
            #expect(received.contains { $0.user == f.alice }, "the owner hears of the accepted share")

            // Bob leaves from his phone: his other devices hear of it.
            let left = try await f.database.modifyRecords(
                [RecordOperation(kind: .forceDelete, recordName: "share-chat")],
                inZone: ZoneID(zoneName: "Chats", ownerRecordName: f.alice),
                atomic: true,
                access: f.access(f.bob, .shared, deviceID: "bobs-phone")
            )
            #expect(left.first?.error == nil)
            received = try await Self.dispatch(dispatcher)
            let departed = try #require(received.first { $0.user == f.bob }, "Bob's database subscription heard nothing of leaving")
            #expect(departed.subscriptionID == "db" && departed.changedRecords.isEmpty, "nothing he can no longer read is listed")
            let entries = try await dispatcher.inbox(
                of: f.bob,
                in: ContainerEnvironment(container: EngineFixture.container, environment: .development),
                after: departed.sequence - 1,
                limit: 1
            )
            #expect(entries.first?.originDeviceID == "bobs-phone", "the phone he left from is not sent it")

            // A second chat shared with him and accepted, then Alice removes him: he hears of it once.
            _ = try await f.modify([RecordOperation(kind: .create, recordName: "chat2", recordType: "Chat")], zone: "Chats")
            try await SharedSyncConvergenceTests.share("chat2", f)
            _ = try await Self.dispatch(dispatcher)
            let removed = try await f.modify(
                [
                    RecordOperation(
                        kind: .forceUpdate,
                        recordName: "share-chat2",
                        recordType: Share.recordType,
                        share: ShareChange(participants: [])
                    )
                ],
                zone: "Chats"
            )
            #expect(removed.first?.error == nil)
            received = try await Self.dispatch(dispatcher)
            #expect(received.filter { $0.user == f.bob }.map(\.subscriptionID) == ["db"])
        }
    }

    @Test("a participant who leaves hears of it when nobody else listens to the zone")
    func departureAlone() async throws {
        try await EngineFixture.with { f in
            let dispatcher = Self.dispatcher(f)
            // Only Bob subscribes: the owner listens to nothing, and once he leaves the zone
            // has no participants, so the departure is all there is to deliver.
            try await Self.subscribe(f, f.bob, .shared, Subscription(subscriptionID: "db", kind: .database))
            try await Self.sharedChat(f)
            _ = try await Self.dispatch(dispatcher)
            let left = try await f.database.modifyRecords(
                [RecordOperation(kind: .forceDelete, recordName: "share-chat")],
                inZone: ZoneID(zoneName: "Chats", ownerRecordName: f.alice),
                atomic: true,
                access: f.access(f.bob, .shared)
            )
            #expect(left.first?.error == nil)
            let received = try await Self.dispatch(dispatcher)
            #expect(received.map(\.subscriptionID) == ["db"])
            #expect(received.first?.user == f.bob)
            #expect(received.first?.changedRecords.isEmpty == true, "nothing he can no longer read is listed")
        }
    }

    @Test("bad subscriptions are refused with a reason and nothing is saved")
    func badSubscriptions() async throws {
        try await EngineFixture.with { f in
            try await f.makeZone("Chats", for: f.alice)
            let near = Query(recordType: "Place", filters: [Filter("location", .near, .location(Location(latitude: 0, longitude: 0)))])
            let cases: [(Subscription, DatabaseScope, NimbusError.Code)] = [
                (Subscription(subscriptionID: "z", kind: .zone(ZoneID(zoneName: "Nope", ownerRecordName: ""))), .private, .zoneNotFound),
                (Subscription(subscriptionID: "z", kind: .zone(ZoneID(zoneName: ZoneID.defaultZoneName, ownerRecordName: ""))), .public, .badRequest),
                (Subscription(subscriptionID: "d", kind: .database), .public, .badRequest),
                (Subscription(subscriptionID: "n", kind: .query(near, zoneID: nil, firesOn: [.create], firesOnce: false)), .private, .badRequest),
                // Bob takes part in nothing of Alice's: her zone does not exist for him.
                (Subscription(subscriptionID: "s", kind: .zone(ZoneID(zoneName: "Chats", ownerRecordName: f.alice))), .shared, .zoneNotFound),
            ]
            for (subscription, scope, code) in cases {
                let user = scope == .shared ? f.bob : f.alice
                let results = try await f.database.modifySubscriptions([.create(subscription)], access: f.access(user, scope))
                guard case .failed(_, let error) = results.first else {
                    Issue.record("\(subscription.kind) in \(scope) was accepted")
                    continue
                }
                #expect(error.code == code, "\(subscription.kind) in \(scope): \(error)")
                #expect(try await f.database.subscriptions(access: f.access(user, scope)).isEmpty)
            }
            let missing = try await f.database.modifySubscriptions([.delete("nothing")], access: f.access(f.alice))
            guard case .failed(_, let error) = missing.first else { Issue.record("deleting nothing succeeded"); return }
            #expect(error.code == .unknownItem)
            await #expect(throws: NimbusError.self) {
                _ = try await f.database.subscriptions(access: f.access(nil, .private))
            }
        }
    }
}
