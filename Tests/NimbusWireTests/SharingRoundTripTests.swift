//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusModel
import NimbusWire
import Testing

extension RequestRoundTripTests {
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
