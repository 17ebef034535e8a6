//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusModel
import NimbusWire
import Testing

/// The SDK writes a request with the type the server reads it with: what it writes must read
/// back as what it meant, or the two sides of the protocol have drifted apart.
@Suite("requests the SDK writes read back as the server reads them")
struct RequestRoundTripTests {
    @Test("records/modify: every kind of operation, field, parent and share change")
    func recordsModify() throws {
        let zoneID = ZoneID(zoneName: "Notes", ownerRecordName: "_" + String(repeating: "a", count: 32))
        let operations = [
            RecordOperation(
                kind: .create,
                recordName: "n1",
                recordType: "Note",
                fields: [
                    "title": FieldInput(.string("Groceries \"and\" more")),
                    "count": FieldInput(.int64(-42)),
                    "secret": FieldInput(.string("sealed"), isEncrypted: true),
                    "tags": FieldInput(.list(elementType: .string, [.string("a"), .string("b")])),
                    "gone": FieldInput(nil),
                ],
                parent: .set("folder")
            ),
            RecordOperation(kind: .update, recordName: "n2", recordType: "Note", recordChangeTag: "7", parent: .clear),
            RecordOperation(kind: .forceReplace, recordName: "n3", recordType: "Note"),
            RecordOperation(kind: .delete, recordName: "n4", recordChangeTag: "9"),
            RecordOperation(
                kind: .create,
                recordName: "share-1",
                recordType: Share.recordType,
                fields: ["cloudkit.title": FieldInput(.string("Trip"))],
                share: ShareChange(
                    rootRecordName: "n1",
                    publicPermission: .readOnly,
                    participants: [
                        ParticipantInput(participantID: "p-1", lookupInfo: nil, permission: .readWrite),
                        ParticipantInput(lookupInfo: .emailAddress("bob@example.com"), role: .privateUser, permission: .readOnly),
                        ParticipantInput(lookupInfo: .phoneNumber("+15550100"), role: .administrator, permission: .readWrite),
                        ParticipantInput(lookupInfo: .userRecordName("_carol"), role: .privateUser, permission: .readOnly),
                    ]
                )
            ),
        ]
        let sent = RecordsModifyRequest(operations: operations, zoneID: zoneID, atomic: false, desiredKeys: ["title"], numbersAsStrings: true)
        let read = try RecordsModifyRequest.parse(sent.jsonBody)
        #expect(read.operations == sent.operations)
        #expect(read.zoneID == zoneID)
        #expect(read.atomic == false)
        #expect(read.desiredKeys == ["title"])
        #expect(read.numbersAsStrings == true)
    }

    @Test("records/modify: what a request leaves out stays out")
    func recordsModifyDefaults() throws {
        let sent = RecordsModifyRequest(operations: [RecordOperation(kind: .create, recordType: "Note")])
        let read = try RecordsModifyRequest.parse(sent.jsonBody)
        #expect(read.operations == sent.operations)
        #expect(read.zoneID == nil && read.atomic == nil && read.desiredKeys == nil && read.numbersAsStrings == nil)
    }

    @Test("records/accept and records/resolve: short GUIDs, root records and their keys")
    func recordsResolve() throws {
        let sent = RecordsResolveRequest(shortGUIDs: [
            .init(value: "abc"),
            .init(value: "def", shouldFetchRootRecord: true, rootRecordDesiredKeys: ["title"]),
        ])
        let read = try RecordsResolveRequest.parse(sent.jsonBody)
        #expect(read.shortGUIDs == sent.shortGUIDs)
    }
}

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
    @Test("links/* and requests/*: requests and answers read back as written")
    func linksAndRequests() throws {
        let zoneID = ZoneID(zoneName: "Z", ownerRecordName: "_owner")
        let link = ShareLinkRequest(zoneID: zoneID, shareName: "share-1", permission: .readWrite, expiresAt: 1_800_000_000_000, singleUse: true)
        let readLink = try ShareLinkRequest.parse(link.jsonBody)
        #expect(readLink.zoneID == zoneID && readLink.shareName == "share-1" && readLink.permission == .readWrite)
        #expect(readLink.expiresAt == 1_800_000_000_000 && readLink.singleUse)
        #expect(try ShortGUIDRequest.parse(ShortGUIDRequest(shortGUID: "abc").jsonBody).shortGUID == "abc")
        let decision = ShareRequestDecision(zoneID: zoneID, shareName: "share-1", userRecordName: "_bob", permission: .readWrite)
        let readDecision = try ShareRequestDecision.parse(decision.jsonBody)
        #expect(readDecision.zoneID == zoneID && readDecision.userRecordName == "_bob" && readDecision.permission == .readWrite)

        let links = [
            ShareLink(
                shortGUID: "g1",
                shareName: "share-1",
                permission: .readOnly,
                expiresAt: nil,
                isSingleUse: false,
                createdBy: "_a",
                createdAt: 5
            ),
            ShareLink(
                shortGUID: "g2",
                shareName: "share-1",
                permission: .readWrite,
                expiresAt: 9,
                isSingleUse: true,
                createdBy: "_a",
                createdAt: 6,
                usedBy: "_b",
                revokedAt: 8
            ),
        ]
        let answer = ShareLinksResponse(links: links, baseURL: "https://nimbus.example")
        let readAnswer = try ShareLinksResponse(json: try JSONParser.parse(answer.jsonBytes()))
        #expect(readAnswer.links == links)
        #expect(readAnswer.baseURL == "https://nimbus.example")
        let rotated = try ShareLinksResponse(
            json: try JSONParser.parse(ShareLinksResponse(mainShortGUID: "new", baseURL: "https://n.example").jsonBytes())
        )
        #expect(rotated.mainShortGUID == "new" && rotated.links.isEmpty)

        let requests = [
            ShareRequest(shareName: "share-1", userRecordName: "_b", status: .pending, requestedAt: 3),
            ShareRequest(shareName: "share-1", userRecordName: "_c", status: .denied, requestedAt: 4),
        ]
        let readRequests = try ShareRequestsResponse(json: try JSONParser.parse(ShareRequestsResponse(requests).jsonBytes()))
        #expect(readRequests.requests == requests)
    }
}

extension RequestRoundTripTests {
    @Test("records/query: the query, its zone or every zone, and the page asked for")
    func recordsQuery() throws {
        let query = Query(
            recordType: "Note",
            filters: [Filter("title", .beginsWith, .string("Gro")), Filter("rank", .greaterThan, .int64(3))],
            sortDescriptors: [SortDescriptor("rank", ascending: false)]
        )
        let zoneID = ZoneID(zoneName: "Z", ownerRecordName: "_owner")
        let sent = RecordsQueryRequest(query: query, zoneID: zoneID, resultsLimit: 50, continuationMarker: "m", desiredKeys: ["title"])
        let read = try RecordsQueryRequest.parse(sent.jsonBody)
        #expect(read.query == query && read.zoneID == zoneID && read.zoneWide == nil)
        #expect(read.resultsLimit == 50 && read.continuationMarker == "m" && read.desiredKeys == ["title"])
        let everywhere = try RecordsQueryRequest.parse(RecordsQueryRequest(query: query, zoneID: nil).jsonBody)
        #expect(everywhere.zoneID == nil && everywhere.zoneWide == true && everywhere.resultsLimit == nil)
    }
}

extension RequestRoundTripTests {
    @Test("records/changes and changes/database: the zone, the token and the page asked for")
    func changes() throws {
        let zoneID = ZoneID(zoneName: "Z", ownerRecordName: "_owner")
        let feed = ZoneFeedRequest(zoneID: zoneID, syncToken: "t", resultsLimit: 10, desiredKeys: ["a"], desiredRecordTypes: ["Note"])
        let read = try RecordsChangesRequest.parse(RecordsChangesRequest(feed: feed, numbersAsStrings: true).jsonBody)
        #expect(read.feed.zoneID == zoneID && read.feed.syncToken == "t" && read.feed.resultsLimit == 10)
        #expect(read.feed.desiredKeys == ["a"] && read.feed.desiredRecordTypes == ["Note"] && read.numbersAsStrings == true)
        let database = try DatabaseChangesRequest.parse(DatabaseChangesRequest(syncToken: "d", resultsLimit: 5).jsonBody)
        #expect(database.syncToken == "d" && database.resultsLimit == 5)
        let fromScratch = try DatabaseChangesRequest.parse(DatabaseChangesRequest(syncToken: nil).jsonBody)
        #expect(fromScratch.syncToken == nil && fromScratch.resultsLimit == nil)
    }
}

extension RequestRoundTripTests {
    @Test("records/lookup, and a whole record saved as an operation: fields, encrypted fields, tag and parent")
    func lookupAndRecordSaves() throws {
        let zoneID = ZoneID(zoneName: "Z", ownerRecordName: "_owner")
        let lookup = RecordsLookupRequest(
            records: [.init(recordName: "a"), .init(recordName: "b", desiredKeys: ["x"])],
            zoneID: zoneID,
            desiredKeys: []
        )
        let readLookup = try RecordsLookupRequest.parse(lookup.jsonBody)
        #expect(readLookup.records == lookup.records && readLookup.zoneID == zoneID && readLookup.desiredKeys == [])

        let stamp = ChangeStamp(timestamp: 1, userRecordName: "_owner", deviceID: "d")
        var record = Record(
            recordID: RecordID(recordName: "n1", zoneID: zoneID),
            recordType: "Note",
            fields: ["title": .string("x"), "when": .timestamp(5)],
            parentRecordName: "folder",
            created: stamp,
            modified: stamp
        )
        record.encryptedFields = ["secret": .string("s")]
        record.recordChangeTag = "3"
        let operation = RecordOperation(saving: record, as: .replace)
        #expect(operation.fields["secret"] == FieldInput(.string("s"), isEncrypted: true))
        let read = try RecordsModifyRequest.parse(RecordsModifyRequest(operations: [operation]).jsonBody)
        #expect(read.operations == [operation])
        #expect(read.operations.first?.recordChangeTag == "3" && read.operations.first?.parent == .set("folder"))
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
    @Test("error dictionaries: the code, the finer code, the reason, the wait and the server's record come back")
    func errors() throws {
        let zoneID = ZoneID(zoneName: "Z", ownerRecordName: "_owner")
        let stamp = ChangeStamp(timestamp: 1, userRecordName: "_owner", deviceID: "d")
        var record = Record(
            recordID: RecordID(recordName: "n1", zoneID: zoneID),
            recordType: "Note",
            fields: ["a": .int64(1)],
            created: stamp,
            modified: stamp
        )
        record.recordChangeTag = "4"
        let codes: [NimbusError.Code] = [
            .permissionFailure, .badRequest, .changeTokenExpired, .serverRecordChanged, .serviceUnavailable, .zoneNotFound,
        ]
        for code in codes {
            var error = NimbusError(code, "because \(code)")
            error.retryAfter = Duration.seconds(3)
            if code == .serverRecordChanged { error.serverRecord = record }
            let json = try JSONParser.parse(WireError(error, uuid: "u").jsonBytes())
            #expect(WireError.isError(json))
            let read = WireError.nimbusError(from: json, in: zoneID)
            #expect(read.code == code, "\(code) read back as \(read.code)")
            #expect(read.reason == "because \(code)" && read.retryAfter == Duration.seconds(3))
            #expect(read.serverRecord == error.serverRecord)
        }
    }
}

extension RequestRoundTripTests {
    @Test("a share record's keys: link, permission, requests, root and every participant read back as written")
    func shareKeys() throws {
        let share = Share(
            recordName: "share-1",
            rootRecordName: "root",
            shortGUID: "guid",
            publicPermission: .readOnly,
            participants: [
                ShareParticipant(
                    participantID: "p1",
                    userRecordName: "_a",
                    lookupInfo: nil,
                    name: nil,
                    role: .owner,
                    acceptance: .accepted,
                    permission: .readWrite
                ),
                ShareParticipant(
                    participantID: "p2",
                    userRecordName: "_b",
                    lookupInfo: nil,
                    name: nil,
                    role: .privateUser,
                    acceptance: .accepted,
                    permission: .readOnly
                ),
                ShareParticipant(
                    participantID: "p3",
                    userRecordName: nil,
                    lookupInfo: .emailAddress("c@example.com"),
                    name: nil,
                    role: .administrator,
                    acceptance: .pending,
                    permission: .readWrite
                ),
            ],
            requestsEnabled: true
        )
        var writer = JSONWriter()
        writer.beginObject()
        WireShare.writeKeys(of: ShareDetails(share: share, currentUserParticipant: nil), to: &writer)
        writer.endObject()
        let keys = try JSONParser.parse(writer.bytes).object(at: "share")
        #expect(WireShare.share(named: "share-1", keys: keys) == share)
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

extension RequestRoundTripTests {
    @Test("a change page's tombstones and tail read back as written; progress is optional")
    func changePageTail() throws {
        let page = ZoneFeedPage(
            zoneID: nil,
            records: [.tombstone(WireTombstone(recordName: "gone", recordType: "Note"))],
            syncToken: "next",
            moreComing: true,
            progress: FeedProgress(from: 1, through: 5, latest: 9)
        )
        let members = try JSONParser.parse(page.jsonBytes()).object(at: "page")
        let tail = try ZoneFeedPage.Tail(members: members)
        #expect(tail.syncToken == "next" && tail.moreComing && tail.progress == FeedProgress(from: 1, through: 5, latest: 9))
        let records = try #require(members["records"]).array(at: "records")
        let tombstone = try #require(records.first.flatMap(WireTombstone.init(json:)))
        #expect(tombstone.recordName == "gone" && tombstone.recordType == "Note")
        let bare = try ZoneFeedPage.Tail(members: try JSONParser.parse(#"{"records":[],"syncToken":"t"}"#).object(at: "page"))
        #expect(bare.syncToken == "t" && !bare.moreComing && bare.progress == nil)
    }
}

extension RequestRoundTripTests {
    @Test("records/accept and records/resolve answers: the zone, the share with its keys, the caller's place and the owner")
    func shareMetadata() throws {
        let zoneID = ZoneID(zoneName: "Z", ownerRecordName: "_owner")
        let stamp = ChangeStamp(timestamp: 1, userRecordName: "_owner", deviceID: "d")
        var shareRecord = Record(
            recordID: RecordID(recordName: "share-1", zoneID: zoneID),
            recordType: Share.recordType,
            created: stamp,
            modified: stamp
        )
        let share = Share(
            recordName: "share-1",
            rootRecordName: "root",
            shortGUID: "guid",
            publicPermission: .none,
            participants: [
                ShareParticipant(
                    participantID: "p1",
                    userRecordName: "_owner",
                    lookupInfo: nil,
                    name: nil,
                    role: .owner,
                    acceptance: .accepted,
                    permission: .readWrite
                )
            ]
        )
        shareRecord.shareDetails = ShareDetails(share: share, currentUserParticipant: nil)
        let metadata = WireShareMetadata(
            shortGUID: "guid",
            containerIdentifier: "iCloud.test",
            environment: "development",
            zoneID: zoneID,
            share: shareRecord,
            rootRecordName: "root",
            rootRecord: nil,
            participantRole: .privateUser,
            participantStatus: .accepted,
            participantPermission: .readOnly,
            ownerIdentity: UserIdentity(userRecordName: "_owner", name: "Ada Lovelace")
        )
        let answer = ShareMetadataResponse(results: [.metadata(metadata), .error(WireError(NimbusError(.unknownItem, "no such share"), uuid: "u"))])
        let read = try ShareMetadataResponse(json: try JSONParser.parse(answer.jsonBytes())).results
        guard case .metadata(let first)? = read.first else { Issue.record("\(read)"); return }
        #expect(first.zoneID == zoneID && first.shortGUID == "guid" && first.rootRecordName == "root")
        #expect(first.share.shareDetails?.share == share)
        #expect(first.participantType == "USER" && first.participantStatus == "ACCEPTED" && first.participantPermission == "READ_ONLY")
        #expect(first.ownerIdentity == UserIdentity(userRecordName: "_owner", name: "Ada Lovelace"))
        guard case .error(let error)? = read.last else { Issue.record("\(read)"); return }
        #expect(error.nimbusError.code == .unknownItem)
    }
}
