//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusModel
import NimbusWire
import Testing

extension RequestRoundTripTests {
    @Test("zones/modify and zones/lookup: zones and their operations, in order")
    func zones() throws {
        let zones = [ZoneID(zoneName: "A", ownerRecordName: "_owner"), ZoneID(zoneName: "B \"quoted\"", ownerRecordName: "_owner")]
        let modify = ZonesModifyRequest(operations: [
            .init(operationType: "create", zoneID: zones[0]), .init(operationType: "delete", zoneID: zones[1]),
        ])
        #expect(try ZonesModifyRequest.parse(modify.jsonBody).operations == modify.operations)
        #expect(try ZonesLookupRequest.parse(ZonesLookupRequest(zones: zones).jsonBody).zones == zones)
    }
}

extension RequestRoundTripTests {
    @Test("subscriptions/modify: saves carry the whole subscription, deletions its ID")
    func subscriptions() throws {
        let query = Subscription(
            subscriptionID: "notes",
            kind: .query(
                Query(recordType: "Note", filters: [Filter("title", .equals, .string("x"))]),
                zoneID: nil,
                firesOn: [.create, .update],
                firesOnce: false
            ),
            notificationInfo: NotificationInfo(alertBody: "New note", shouldBadge: true)
        )
        let zone = Subscription(subscriptionID: "zone", kind: .zone(ZoneID(zoneName: "Z", ownerRecordName: "_owner")))
        let sent = SubscriptionsModifyRequest(operations: [.save(query), .save(zone), .delete("old")])
        let read = try SubscriptionsModifyRequest.parse(sent.jsonBody)
        #expect(read.operations.map { $0.operationType } == ["create", "create", "delete"])
        #expect(read.operations.map { $0.subscription.subscriptionID } == ["notes", "zone", "old"])
        #expect(read.operations[0].subscription == query)
        #expect(read.operations[1].subscription == zone)
    }
}

extension RequestRoundTripTests {
    @Test("notifications/inbox: the page asked for; an empty body asks for the first page")
    func notificationInbox() throws {
        let read = try NotificationInboxRequest.parse(NotificationInboxRequest(after: 41, limit: 7).jsonBody)
        #expect(read.after == 41 && read.limit == 7)
        let first = try NotificationInboxRequest.parseAllowingEmpty([])
        #expect(first.after == 0 && first.limit == NotificationInboxRequest.defaultLimit)
        #expect(throws: NimbusError.self) { try NotificationInboxRequest.parse(Array(#"{"limit": 201}"#.utf8)) }
    }
}

extension RequestRoundTripTests {
    @Test("subscriptions and counts: answers read back as written, errors and deletions in their places")
    func subscriptionAndCountAnswers() throws {
        let zone = Subscription(subscriptionID: "zone", kind: .zone(ZoneID(zoneName: "Z", ownerRecordName: "_owner")))
        let answer = SubscriptionsResponse(subscriptions: [
            .subscription(zone), .deleted("old"), .error(WireError(NimbusError(.unknownItem, "no such subscription"), uuid: "u")),
        ])
        let read = try SubscriptionsResponse(json: try JSONParser.parse(answer.jsonBytes())).subscriptions
        #expect(read.count == 3)
        if case .subscription(let subscription) = read[0] { #expect(subscription == zone) } else { Issue.record("\(read[0])") }
        if case .deleted(let id) = read[1] { #expect(id == "old") } else { Issue.record("\(read[1])") }
        if case .error(let error) = read[2] { #expect(error.nimbusError.code == .unknownItem) } else { Issue.record("\(read[2])") }
        #expect(try RecordsCountResponse(json: try JSONParser.parse(RecordsCountResponse(count: 42).jsonBytes())).count == 42)
    }
}
