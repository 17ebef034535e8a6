//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Foundation
import NimbusClient
import NimbusModel
import NimbusTesting
import Testing

/// Splitting, partial failures and paging, with answers a real server gives only in rare states
/// (a request too large for it, one zone of several refused): scripted.
@Suite("NimbusClient: splitting, partial failures and paging, against a scripted transport")
struct BatchScriptTests {
    private static let notes = ZoneID(zoneName: "Notes", ownerRecordName: "")
    private static let tooLarge = ScriptedTransport.Step.response(
        status: 400,
        body:
            #"{"uuid":"1","serverErrorCode":"BAD_REQUEST","reason":"request body is larger than the 16777216-byte limit","nimbusErrorCode":"LIMIT_EXCEEDED"}"#
    )

    private func database(_ transport: ScriptedTransport) -> Database {
        Container(
            serverURL: "http://nimbus.test",
            identifier: "iCloud.com.example.app",
            authentication: .apiToken("api", webAuthToken: "web"),
            transport: transport,
            retryPolicy: .never
        ).privateCloudDatabase
    }

    private func notes(_ names: [String]) -> [Record] {
        names.map { Record(recordType: "Note", recordID: RecordID(recordName: $0, zoneID: Self.notes), fields: ["title": .string($0)]) }
    }

    /// A `records/modify` answer saving `names`, as the server writes it.
    private func saved(_ names: [String]) -> ScriptedTransport.Step {
        let items = names.map { #"{"recordName":"\#($0)","recordType":"Note","recordChangeTag":"t-\#($0)","fields":{}}"# }
        return .response(status: 200, body: #"{"records":[\#(items.joined(separator: ","))]}"#)
    }

    /// The record names a scripted `records/modify` request carried.
    private func names(in request: ClientRequest) throws -> [String] {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any])
        let operations = try #require(object["operations"] as? [[String: Any]])
        return operations.compactMap { ($0["record"] as? [String: Any])?["recordName"] as? String }
    }

    @Test("a batch the server finds too large is split in halves, down to what it takes, and the results merged")
    func splitsWhatTheServerRefuses() async throws {
        let transport = ScriptedTransport([Self.tooLarge, Self.tooLarge, saved(["a"]), saved(["b"]), saved(["c", "d"])])
        let result = try await database(transport).modifyRecords(saving: notes(["a", "b", "c", "d"]), atomically: false)
        #expect(try transport.requests.map { try names(in: $0) } == [["a", "b", "c", "d"], ["a", "b"], ["a"], ["b"], ["c", "d"]])
        for name in ["a", "b", "c", "d"] {
            let record = try result.saveResults[RecordID(recordName: name, zoneID: Self.notes)]?.get()
            #expect(record?.recordChangeTag == "t-\(name)")
            #expect(record?.fields["title"] == .string(name), "the sent fields are put back into each half's results")
        }
        #expect(result.partialFailure == nil)
    }

    @Test("an atomic batch is never split: all or nothing cannot span two requests")
    func atomicBatchesAreNotSplit() async throws {
        let transport = ScriptedTransport([Self.tooLarge, saved(["a"]), saved(["b"])])
        let error = try await #require(throws: NimbusError.self) {
            try await database(transport).modifyRecords(saving: notes(["a", "b"]), atomically: true)
        }
        #expect(error.code == .limitExceeded)
        #expect(transport.requests.count == 1)
    }

    @Test("when a later half fails after an earlier one committed, its records report the failure and the others stand")
    func laterHalfFailure() async throws {
        let unavailable = ScriptedTransport.Step.response(
            status: 503,
            body: #"{"uuid":"2","serverErrorCode":"TRY_AGAIN_LATER","reason":"the database is unavailable"}"#
        )
        let transport = ScriptedTransport([Self.tooLarge, saved(["a"]), unavailable])
        let result = try await database(transport).modifyRecords(saving: notes(["a", "b"]), atomically: false)
        #expect(try result.saveResults[RecordID(recordName: "a", zoneID: Self.notes)]?.get().recordChangeTag == "t-a")
        let failure = try #require(result.partialFailure)
        #expect(failure.code == .partialFailure)
        #expect(failure.partialErrorsByItemID.count == 1)
        #expect(failure.partialErrorsByItemID[.record(RecordID(recordName: "b", zoneID: Self.notes))]?.code == .serviceUnavailable)
        #expect("\(failure)".hasPrefix("PARTIAL_FAILURE: 1 of 2 items failed"), "\(failure)")
    }

    @Test("the default zone is never atomic: its batches are cut at 200 and split when too large, whatever `atomically` says")
    func defaultZoneBatchesSplit() async throws {
        let defaultZone = ZoneID(zoneName: ZoneID.defaultZoneName, ownerRecordName: "")
        let recordNames = (0..<250).map { "r\($0)" }
        let transport = ScriptedTransport([
            saved(Array(recordNames[..<200])), Self.tooLarge, saved(Array(recordNames[200..<225])), saved(Array(recordNames[225...])),
        ])
        let records = recordNames.map { Record(recordType: "Note", recordID: RecordID(recordName: $0, zoneID: defaultZone)) }
        let result = try await database(transport).modifyRecords(saving: records, atomically: true)
        #expect(try transport.requests.map { try names(in: $0).count } == [200, 50, 25, 25])
        #expect(result.saveResults.count == 250 && result.partialFailure == nil)
    }

    @Test("a proxy's 413 splits a batch as the server's own limit does")
    func proxyBodyLimitSplits() async throws {
        let refused = ScriptedTransport.Step.response(status: 413, body: "<html>413 Request Entity Too Large</html>")
        let transport = ScriptedTransport([refused, saved(["a"]), saved(["b"])])
        let result = try await database(transport).modifyRecords(saving: notes(["a", "b"]), atomically: false)
        #expect(transport.requests.count == 3)
        #expect(result.saveResults.count == 2 && result.partialFailure == nil)
    }

    @Test("a committed request whose answer cannot be read reports its unread records, keeps the read ones, and the call goes on")
    func unreadableAnswerAfterCommit() async throws {
        let garbled = ScriptedTransport.Step.response(
            status: 200,
            body: #"{"records":[{"recordName":"a","recordType":"Note","recordChangeTag":"1","fields":{}},{"recordName":"b","recordType":7}]}"#
        )
        let transport = ScriptedTransport([Self.tooLarge, garbled, saved(["c", "d"])])
        let result = try await database(transport).modifyRecords(saving: notes(["a", "b", "c", "d"]), atomically: false)
        #expect(try result.saveResults[RecordID(recordName: "a", zoneID: Self.notes)]?.get().recordChangeTag == "1")
        #expect(try result.saveResults[RecordID(recordName: "c", zoneID: Self.notes)]?.get().recordChangeTag == "t-c")
        let failure = try #require(result.partialFailure)
        #expect(failure.partialErrorsByItemID.keys.map(\.description) == ["record b@Notes:"])
    }

    @Test("per-record errors are results, and partialFailure gathers them by record ID")
    func perRecordErrors() async throws {
        let transport = ScriptedTransport([
            .response(
                status: 200,
                body: #"""
                    {"records":[
                      {"recordName":"a","recordType":"Note","recordChangeTag":"1","fields":{}},
                      {"recordName":"b","serverErrorCode":"CONFLICT","reason":"changed on the server"},
                      {"recordName":"c","serverErrorCode":"QUOTA_EXCEEDED","reason":"storage full"}
                    ]}
                    """#
            )
        ])
        let result = try await database(transport).modifyRecords(saving: notes(["a", "b", "c"]), atomically: false)
        let errors = try #require(result.partialFailure).partialErrorsByItemID
        #expect(Set(errors.keys) == [.record(RecordID(recordName: "b", zoneID: Self.notes)), .record(RecordID(recordName: "c", zoneID: Self.notes))])
        #expect(errors[.record(RecordID(recordName: "b", zoneID: Self.notes))]?.code == .serverRecordChanged)
        #expect(errors[.record(RecordID(recordName: "c", zoneID: Self.notes))]?.code == .quotaExceeded)
    }

    @Test("zones: one refused of several is a partial failure naming it; a single zone's error is its own")
    func zonePartialFailure() async throws {
        let other = ZoneID(zoneName: "Other", ownerRecordName: "")
        let transport = ScriptedTransport([
            .response(
                status: 200,
                body: #"""
                    {"zones":[
                      {"zoneID":{"zoneName":"Notes","ownerRecordName":"_u"}},
                      {"zoneID":{"zoneName":"Other"},"serverErrorCode":"QUOTA_EXCEEDED","reason":"too many zones"}
                    ]}
                    """#
            ),
            .response(
                status: 200,
                body: #"{"zones":[{"zoneID":{"zoneName":"Other"},"serverErrorCode":"ZONE_NOT_FOUND","reason":"Zone not found"}]}"#
            ),
        ])
        let database = database(transport)
        let several = try await #require(throws: NimbusError.self) { try await database.save(zones: [Self.notes, other]) }
        #expect(several.code == .partialFailure)
        #expect(several.partialErrorsByItemID.keys.map(\.description) == ["zone Other:"])
        #expect(several.partialErrorsByItemID[.zone(other)]?.code == .quotaExceeded)
        let single = try await #require(throws: NimbusError.self) { try await database.delete(zones: [other]) }
        #expect(single.code == .zoneNotFound)
    }

    @Test("subscriptions without an ID get one before they are sent, so a resend after a lost answer is the same save")
    func subscriptionIDsAreAssignedBeforeSending() async throws {
        let transport = ScriptedTransport([
            .dropConnection,
            .response(
                status: 200,
                body: #"{"subscriptions":[{"subscriptionID":"placeholder","subscriptionType":"zone","zoneID":{"zoneName":"Notes"}}]}"#
            ),
        ])
        let container = Container(
            serverURL: "http://nimbus.test",
            identifier: "iCloud.com.example.app",
            authentication: .apiToken("api", webAuthToken: "web"),
            transport: transport,
            retryPolicy: RetryPolicy(initialDelay: .milliseconds(1))
        )
        try await container.privateCloudDatabase.save(subscriptions: [Subscription(subscriptionID: "", kind: .zone(Self.notes))])
        #expect(transport.requests.count == 2)
        let ids = try transport.requests.map { request in
            let object = try #require(try JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any])
            let operation = try #require((object["operations"] as? [[String: Any]])?.first)
            return try #require((operation["subscription"] as? [String: Any])?["subscriptionID"] as? String)
        }
        #expect(ids[0] == ids[1])
        #expect(UUID(uuidString: ids[0]) != nil, "\(ids)")
    }

    @Test("change pages are followed while moreComing, each page handled before the next is asked for")
    func followsChangePages() async throws {
        let transport = ScriptedTransport([
            .response(
                status: 200,
                body:
                    #"{"zoneID":{"zoneName":"Notes"},"records":[{"recordName":"a","recordType":"Note","recordChangeTag":"1","fields":{}}],"syncToken":"t1","moreComing":true}"#
            ),
            .response(
                status: 200,
                body:
                    #"{"zoneID":{"zoneName":"Notes"},"records":[{"recordName":"b","recordType":"Note","deleted":true}],"syncToken":"t2","moreComing":false}"#
            ),
        ])
        var pages: [ZoneChangesPage] = []
        let token = try await database(transport).fetchZoneChanges(in: Self.notes, since: "t0") { page in
            #expect(transport.requests.count == pages.count + 1, "a page was asked for before the one before it was handled")
            pages.append(page)
        }
        #expect(token == "t2")
        #expect(pages.map(\.syncToken) == ["t1", "t2"])
        #expect(pages[0].changed.map(\.recordID.recordName) == ["a"])
        #expect(pages[1].deleted == [ZoneChangesPage.DeletedRecord(recordID: RecordID(recordName: "b", zoneID: Self.notes), recordType: "Note")])
        let sentTokens = try transport.requests.map { request in
            try #require(try JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any])["syncToken"] as? String
        }
        #expect(sentTokens == ["t0", "t1"])

        // A page survives a round trip through JSON, to be kept and applied later.
        let decoded = try JSONDecoder().decode([ZoneChangesPage].self, from: JSONEncoder().encode(pages))
        #expect(decoded == pages)
    }

    @Test("query cursors are followed to the last page, with progress after each")
    func followsQueryCursors() async throws {
        let transport = ScriptedTransport([
            .response(status: 200, body: #"{"records":[{"recordName":"a","recordType":"Note","fields":{}}],"continuationMarker":"c1"}"#),
            .delayed(milliseconds: 5, .response(status: 200, body: #"{"records":[{"recordName":"b","recordType":"Note","fields":{}}]}"#)),
        ])
        var progress: [Int] = []
        let records = try await database(transport).records(matching: Query(recordType: "Note"), in: Self.notes) { progress.append($0) }
        #expect(records.map(\.recordID.recordName) == ["a", "b"])
        #expect(progress == [1, 2])
        let markers = try transport.requests.map { request in
            try #require(try JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any])["continuationMarker"] as? String
        }
        #expect(markers == [nil, "c1"])
    }

    @Test("CloudKit's names for the codes: notAuthenticated is the protocol's AUTHENTICATION_REQUIRED")
    func cloudKitNames() {
        #expect(NimbusError.Code.notAuthenticated == .authenticationRequired)
        #expect(NimbusError.Code.partialFailure.description == "PARTIAL_FAILURE")
        #expect(NimbusError.partialFailure([:], of: 3) == nil)
    }
}
