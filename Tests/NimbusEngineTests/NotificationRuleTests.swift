//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Foundation
import NimbusEngine
import NimbusModel
import NimbusStore
import Testing

/// Per-recipient notification rules, in the demo chat: Alice owns the chat, Bob and Carol take
/// part; each member subscribes to the chat's zone with the same rules. Each scenario is one
/// of the rules the chat needs.
@Suite("notifications: per-recipient rules in a shared chat")
struct NotificationRuleTests {
    /// The chat app's rules, as a client would send them.
    static let chatRules = """
        [
          {"name": "not-the-sender", "when": {"recipientIsWriter": true}, "then": "none"},
          {"name": "reactions-to-the-author", "recordTypes": ["Reaction"],
           "when": {"not": {"recipientIs": "$parent.___createdBy"}}, "then": "none"},
          {"name": "muted-unless-mentioned", "recordTypes": ["Message"], "reasons": ["create"],
           "when": {"all": [
             {"recipientHas": {"recordType": "Mute", "filterBy": [
               {"fieldName": "chat", "comparator": "EQUALS", "fieldValue": {"value": "$record.parent"}}]}},
             {"not": {"field": {"of": "record", "fieldName": "mentions", "comparator": "LIST_CONTAINS",
               "fieldValue": {"value": "$recipient"}}}}]},
           "then": "none"},
          {"name": "already-read", "recordTypes": ["Message"],
           "when": {"recipientHas": {"recordType": "ReadMarker", "filterBy": [
             {"fieldName": "chat", "comparator": "EQUALS", "fieldValue": {"value": "$record.parent"}},
             {"fieldName": "readThrough", "comparator": "GREATER_THAN_OR_EQUALS", "fieldValue": {"value": "$record.___createTime"}}]}},
           "then": "silent"}
        ]
        """

    static func rules() throws -> [NotificationRule] {
        let subscription = """
            {"subscriptionType": "database", "rules": \(chatRules)}
            """
        return try Subscription.read(JSONParser.parse(subscription), at: "").rules
    }

    struct Chat {
        let f: EngineFixture
        let carol: String
        let dispatcher: NotificationDispatcher

        var members: [String] { [f.alice, f.bob, carol] }
        var zone: ZoneID { ZoneID(zoneName: "Chats", ownerRecordName: f.alice) }

        /// Writes as a member: Alice in her private database, the others in their shared one.
        @discardableResult
        func write(_ operations: [RecordOperation], as user: String) async throws -> [RecordResult] {
            let scope: DatabaseScope = user == f.alice ? .private : .shared
            let results = try await f.database.modifyRecords(operations, inZone: zone, atomic: true, access: f.access(user, scope))
            for result in results { if case .failed(_, let error) = result { throw error } }
            return results
        }

        /// A record in the member's own private database (their settings).
        func saveSetting(_ operation: RecordOperation, as user: String) async throws {
            _ = try await f.database.modifyRecords([operation], inZone: nil, atomic: false, access: f.access(user))
        }

        /// What each member got from the writes since the last call.
        func delivered() async throws -> [String: NotificationTests.Received] {
            var byUser: [String: NotificationTests.Received] = [:]
            for notification in try await NotificationTests.dispatch(dispatcher) {
                #expect(byUser[notification.user] == nil, "two notifications for one write")
                byUser[notification.user] = notification
            }
            return byUser
        }

        func decision(_ notification: NotificationTests.Received?) -> String? {
            (notification?.ck["nimbus"] as? [String: Any])?["decision"] as? String
        }
    }

    static func withChat(_ body: (Chat) async throws -> Void) async throws {
        try await EngineFixture.with { f in
            let carol = try await f.accounts.addUser(name: "Carol", email: nil, phone: nil, container: EngineFixture.container).user.userRecordName
            try await f.makeZone("Chats", for: f.alice)
            let results = try await f.modify(
                [
                    RecordOperation(kind: .create, recordName: "folder", recordType: "Folder", fields: ["secret": FieldInput(.string("x"))]),
                    RecordOperation(kind: .create, recordName: "chat", recordType: "Chat", parent: .set("folder")),
                    RecordOperation(
                        kind: .create,
                        recordName: "share-chat",
                        recordType: Share.recordType,
                        share: ShareChange(
                            rootRecordName: "chat",
                            participants: [f.bob, carol].map { ParticipantInput(lookupInfo: .userRecordName($0), permission: .readWrite) }
                        )
                    ),
                ],
                zone: "Chats"
            )
            let guid = try #require(results.last?.record?.shareDetails?.share.shortGUID)
            for user in [f.bob, carol] {
                _ = try await f.database.acceptShares([ShareLookup(shortGUID: guid)], access: f.access(user))[0].get()
            }
            let chat = Chat(f: f, carol: carol, dispatcher: NotificationTests.dispatcher(f))
            let rules = try Self.rules()
            for user in chat.members {
                let subscription = Subscription(
                    subscriptionID: "chat",
                    kind: .zone(chat.zone),
                    notificationInfo: NotificationInfo(alertBody: "New in the chat", soundName: "default"),
                    rules: rules
                )
                try await NotificationTests.subscribe(f, user, user == f.alice ? .private : .shared, subscription)
            }
            // The setup's writes (the accepts, one each) notify too: set them aside.
            _ = try await NotificationTests.dispatch(chat.dispatcher)
            try await body(chat)
        }
    }

    static func message(_ name: String, mentions: [String] = []) -> RecordOperation {
        var fields: [NameKey: FieldInput] = ["text": FieldInput(.string("hello"))]
        if !mentions.isEmpty { fields["mentions"] = FieldInput(.list(elementType: .string, mentions.map(FieldValue.string))) }
        return RecordOperation(kind: .create, recordName: name, recordType: "Message", fields: fields, parent: .set("chat"))
    }

    @Test("a new message notifies every member except its sender")
    func everyoneButTheSender() async throws {
        try await Self.withChat { chat in
            try await chat.write([Self.message("m1")], as: chat.f.bob)
            let got = try await chat.delivered()
            #expect(Set(got.keys) == [chat.f.alice, chat.carol])
            #expect(chat.decision(got[chat.carol]) == "visible")
            #expect((got[chat.carol]?.aps?["alert"] as? [String: Any])?["body"] as? String == "New in the chat")
        }
    }

    @Test("a reaction notifies only the author of the message reacted to")
    func reactionToTheAuthor() async throws {
        try await Self.withChat { chat in
            try await chat.write([Self.message("m1")], as: chat.f.bob)
            _ = try await chat.delivered()
            try await chat.write([RecordOperation(kind: .create, recordName: "r1", recordType: "Reaction", parent: .set("m1"))], as: chat.carol)
            let got = try await chat.delivered()
            #expect(Set(got.keys) == [chat.f.bob])
            #expect(got[chat.f.bob]?.changedRecords == ["r1"])
        }
    }

    @Test("a muted chat notifies nothing, unless the message mentions the recipient")
    func mutedUnlessMentioned() async throws {
        try await Self.withChat { chat in
            try await chat.saveSetting(
                RecordOperation(kind: .create, recordName: "mute-chat", recordType: "Mute", fields: ["chat": FieldInput(.string("chat"))]),
                as: chat.carol
            )
            try await chat.write([Self.message("m2")], as: chat.f.bob)
            var got = try await chat.delivered()
            #expect(Set(got.keys) == [chat.f.alice], "Carol muted the chat")
            try await chat.write([Self.message("m3", mentions: [chat.carol])], as: chat.f.bob)
            got = try await chat.delivered()
            #expect(Set(got.keys) == [chat.f.alice, chat.carol], "Carol is mentioned")
            #expect(got[chat.carol]?.ck["nimbus"].map { ($0 as? [String: Any])?["rules"] as? [String] } == .some(nil))
        }
    }

    @Test("a recipientHas lookup can search words: a member's away note mentioning the chat's topic mutes it")
    func lookupSearchesWords() async throws {
        try await Self.withChat { chat in
            let away = """
                [{"name": "away", "recordTypes": ["Message"],
                  "when": {"recipientHas": {"recordType": "AwayNote", "filterBy": [
                    {"fieldName": "allTokens", "comparator": "CONTAINS_ANY_TOKENS", "fieldValue": {"value": "hello"}}]}},
                  "then": "none"},
                 {"name": "away-by-topic", "recordTypes": ["Message"],
                  "when": {"recipientHas": {"recordType": "AwayTopics", "filterBy": [
                    {"fieldName": "topics", "comparator": "CONTAINS_ALL_TOKENS", "fieldValue": {"value": "Hello"}}]}},
                  "then": "none"}]
                """
            let rules = try Subscription.read(JSONParser.parse(#"{"subscriptionType": "database", "rules": \#(away)}"#), at: "").rules
            for user in chat.members {
                let subscription = Subscription(
                    subscriptionID: "chat",
                    kind: .zone(chat.zone),
                    notificationInfo: NotificationInfo(alertBody: "New"),
                    rules: rules
                )
                try await NotificationTests.subscribe(chat.f, user, user == chat.f.alice ? .private : .shared, subscription)
            }
            // Carol's note says it in a string field, Alice's list of topics in a string list.
            try await chat.saveSetting(
                RecordOperation(
                    kind: .create,
                    recordName: "away",
                    recordType: "AwayNote",
                    fields: ["note": FieldInput(.string("Hello! Back Monday."))]
                ),
                as: chat.carol
            )
            try await chat.saveSetting(
                RecordOperation(
                    kind: .create,
                    recordName: "topics",
                    recordType: "AwayTopics",
                    fields: ["topics": FieldInput(.list(elementType: .string, [.string("hello"), .string("lunch")]))]
                ),
                as: chat.f.alice
            )
            _ = try await chat.delivered()
            try await chat.write([Self.message("m9")], as: chat.f.bob)
            // Bob, the writer, has no away note; Alice and Carol are away for messages saying hello.
            #expect(Set(try await chat.delivered().keys) == [chat.f.bob])
        }
    }

    @Test("a message the recipient already read on another device is only a silent update")
    func alreadyReadIsSilent() async throws {
        try await Self.withChat { chat in
            try await chat.write([Self.message("m1")], as: chat.f.bob)
            _ = try await chat.delivered()
            // Alice reads the chat on her phone: her read marker passes m1.
            chat.f.clock.advance(by: .milliseconds(1000))
            try await chat.saveSetting(
                RecordOperation(
                    kind: .create,
                    recordName: "read-chat",
                    recordType: "ReadMarker",
                    fields: ["chat": FieldInput(.string("chat")), "readThrough": FieldInput(.timestamp(chat.f.clock.milliseconds))]
                ),
                as: chat.f.alice
            )
            try await chat.write(
                [RecordOperation(kind: .forceUpdate, recordName: "m1", fields: ["text": FieldInput(.string("edited"))])],
                as: chat.f.bob
            )
            let got = try await chat.delivered()
            #expect(chat.decision(got[chat.f.alice]) == "silent")
            #expect(got[chat.f.alice]?.aps?.keys.sorted() == ["content-available"])
            #expect((got[chat.f.alice]?.ck["nimbus"] as? [String: Any])?["rules"] as? [String] == ["already-read"])
            #expect(chat.decision(got[chat.carol]) == "visible", "Carol has not read it")
        }
    }

    @Test("rules read only what the recipient may: a parent outside their share is absent")
    func rulesCannotReadPastTheShare() async throws {
        try await Self.withChat { chat in
            // The chat's parent, `folder`, is Alice's alone. A rule on it decides for Alice; for
            // Bob the parent does not exist, so the rule does not apply.
            let rule = NotificationRule(
                name: "secret-folder",
                recordTypes: ["Chat"],
                when: .field(.parent, Filter("secret", .equals, .string("x"))),
                then: .none
            )
            for user in chat.members {
                let scope: DatabaseScope = user == chat.f.alice ? .private : .shared
                try await NotificationTests.subscribe(
                    chat.f,
                    user,
                    scope,
                    Subscription(subscriptionID: "chat-records", kind: .zone(chat.zone), rules: [rule])
                )
            }
            try await chat.write(
                [RecordOperation(kind: .forceUpdate, recordName: "chat", fields: ["title": FieldInput(.string("Plans"))])],
                as: chat.carol
            )
            let received = try await NotificationTests.dispatch(chat.dispatcher).filter { $0.subscriptionID == "chat-records" }
            #expect(Set(received.map(\.user)) == [chat.f.bob, chat.carol])
        }
    }

    @Test("the dry run explains a decision, and refuses records the caller cannot read")
    func dryRun() async throws {
        try await Self.withChat { chat in
            try await chat.saveSetting(
                RecordOperation(kind: .create, recordName: "mute-chat", recordType: "Mute", fields: ["chat": FieldInput(.string("chat"))]),
                as: chat.carol
            )
            try await chat.write([Self.message("m2"), Self.message("m3", mentions: [chat.carol])], as: chat.f.bob)
            let carol = chat.f.access(chat.carol, .shared)
            let muted = try await chat.f.database.explainNotification(
                subscriptionID: "chat",
                recordName: "m2",
                inZone: chat.zone,
                reason: nil,
                writer: nil,
                access: carol
            )
            #expect(muted.fires && muted.decision == .none && muted.rule == "muted-unless-mentioned" && muted.reason == .create)
            #expect(muted.steps.contains { $0.contains("not-the-sender") })
            let mentioned = try await chat.f.database.explainNotification(
                subscriptionID: "chat",
                recordName: "m3",
                inZone: chat.zone,
                reason: .create,
                writer: nil,
                access: carol
            )
            #expect(mentioned.decision == .visible && mentioned.rule == nil)
            let own = try await chat.f.database.explainNotification(
                subscriptionID: "chat",
                recordName: "m3",
                inZone: chat.zone,
                reason: .create,
                writer: chat.carol,
                access: carol
            )
            #expect(own.decision == .none && own.rule == "not-the-sender")
            // `folder` is outside Carol's share: it does not exist for her.
            await #expect(throws: NimbusError.self) {
                _ = try await chat.f.database.explainNotification(
                    subscriptionID: "chat",
                    recordName: "folder",
                    inZone: chat.zone,
                    reason: .update,
                    writer: nil,
                    access: carol
                )
            }
        }
    }

    @Test("bad rules are refused on save with the path of the problem")
    func badRules() async throws {
        let cases: [(String, String)] = [
            (#"[{"name": "x", "then": "loud"}]"#, "unknown decision 'loud'"),
            (#"[{"name": "x", "when": {"sometimes": true}, "then": "none"}]"#, "unknown condition 'sometimes'"),
            (#"[{"name": "x", "when": {"recipientIs": "$everyone"}, "then": "none"}]"#, "unknown variable '$everyone'"),
            (#"[{"name": "x", "when": {"recipientIsWriter": true, "not": {"recipientIsWriter": true}}, "then": "none"}]"#, "exactly one key"),
            (
                #"[{"name": "x", "when": {"recipientHas": {"recordType": "Mute", "filterBy": [{"fieldName": "tags", "comparator": "LIST_CONTAINS", "fieldValue": {"value": "a"}}]}}, "then": "none"}]"#,
                "not supported in recipientHas"
            ),
            (#"[{"name": "x", "then": "none"}, {"name": "x", "then": "none"}]"#, "used twice"),
            (#"[{"name": "x", "reasons": ["edit"], "then": "none"}]"#, "unknown reason 'edit'"),
            ("[" + Array(repeating: #"{"name": "n", "then": "none"}"#, count: 21).joined(separator: ",") + "]", "at most 20"),
        ]
        for (rules, reason) in cases {
            let json = #"{"subscriptionType": "database", "rules": \#(rules)}"#
            do {
                _ = try Subscription.read(JSONParser.parse(json), at: "subscription")
                Issue.record("accepted: \(rules)")
            } catch let error as NimbusError {
                #expect(error.code == .badRequest)
                #expect(error.reason.contains(reason), "\(error.reason)")
                #expect(error.reason.contains("subscription.rules"), "the reason names no path: \(error.reason)")
            }
        }
    }
}
