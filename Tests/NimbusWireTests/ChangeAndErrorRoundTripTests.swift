//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusModel
import NimbusWire
import Testing

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
