//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Foundation

/// Measures what sharing costs: sharing a root with a large hierarchy, moving a subtree out of
/// and into it (each one request, whatever the hierarchy's size), and a save through the shared
/// database against the same save in the owner's private database.
///
/// User 0 owns; user 1 accepts the share and writes through their shared database.
enum SharingBenchmark {
    struct Result {
        var hierarchySize: Int
        var shareMilliseconds: Double
        var moveOutMilliseconds: Double
        var moveInMilliseconds: Double
        var saves: Int
        var privateSaveP50: Double
        var sharedSaveP50: Double
    }

    static let threads = 90
    static let perThread = 99
    static let branchSize = 1_000

    static func run(session: LoadSession) throws -> Result {
        guard let port = URL(string: session.url)?.port else { throw LoadError("no port in \(session.url)") }
        let owner = try KeepAliveClient(port: port)
        let participant = try KeepAliveClient(port: port)
        func post(_ client: KeepAliveClient, _ operation: String, scope: String = "private", user: Int = 0, _ body: String) throws -> String {
            let response = try client.post(session.path(operation, scope: scope, user: user), body: body)
            let text = String(decoding: response.body, as: UTF8.self)
            guard response.status == 200, !text.contains("serverErrorCode") else { throw LoadError("\(operation) failed: \(text.prefix(300))") }
            return text
        }
        func modify(_ client: KeepAliveClient, zone: String, scope: String = "private", user: Int = 0, _ operations: [String]) throws {
            let zoneID = scope == "shared" ? zone : #"{"zoneName":"\#(zone)"}"#
            _ = try post(
                client,
                "records/modify",
                scope: scope,
                user: user,
                #"{"zoneID":\#(zoneID),"operations":[\#(operations.joined(separator: ","))]}"#
            )
        }
        func create(_ name: String, parent: String?) -> String {
            let parentMember = parent.map { #","parent":{"recordName":"\#($0)"}"# } ?? ""
            return
                #"{"operationType":"create","record":{"recordName":"\#(name)","recordType":"Message","fields":{"text":{"value":"\#(name)"}}\#(parentMember)}}"#
        }

        FileHandle.standardError.write(Data("seeding the sharing hierarchy...\n".utf8))
        for zone in ["Shared", "Plain"] {
            _ = try post(owner, "zones/modify", #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"\#(zone)"}}}]}"#)
        }
        // root → 90 threads of 99 messages, and a 1,000-record branch (a head and 999 children).
        var operations = [create("root", parent: nil), create("outside", parent: nil), create("branch", parent: "root")]
        for thread in 0..<threads {
            operations.append(create("t\(thread)", parent: "root"))
            for message in 0..<perThread { operations.append(create("t\(thread)-\(message)", parent: "t\(thread)")) }
        }
        for leaf in 1..<branchSize { operations.append(create("b\(leaf)", parent: "branch")) }
        for start in stride(from: 0, to: operations.count, by: 200) {
            try modify(owner, zone: "Shared", Array(operations[start..<min(start + 200, operations.count)]))
        }
        try modify(owner, zone: "Plain", [create("root", parent: nil)])
        let hierarchySize = 1 + threads * (1 + perThread) + branchSize

        let participantName = try string(after: #""userRecordName":""#, in: try post(participant, "users/current", user: 1, ""))
        let start = ContinuousClock.now
        let shared = try post(
            owner,
            "records/modify",
            #"{"zoneID":{"zoneName":"Shared"},"operations":[{"operationType":"create","record":{"recordName":"share","recordType":"cloudkit.share","forRecord":{"recordName":"root"},"participants":[{"permission":"READ_WRITE","userIdentity":{"lookupInfo":{"userRecordName":"\#(participantName)"}}}]}}]}"#
        )
        let shareMilliseconds = Double.milliseconds(since: start)
        let guid = try string(after: #""shortGUID":""#, in: shared)
        _ = try post(participant, "records/accept", scope: "public", user: 1, #"{"shortGUIDs":[{"value":"\#(guid)"}]}"#)

        func moveBranch(to parent: String) throws -> Double {
            let start = ContinuousClock.now
            try modify(
                owner,
                zone: "Shared",
                [#"{"operationType":"forceUpdate","record":{"recordName":"branch","recordType":"Message","parent":{"recordName":"\#(parent)"}}}"#]
            )
            return Double.milliseconds(since: start)
        }
        let moveOut = try moveBranch(to: "outside")
        let moveIn = try moveBranch(to: "root")

        // Sequential saves of a new child: the owner in a plain zone, the participant through
        // the shared database; interleaved, so both see the same machine state.
        let ownerName = try string(after: #""userRecordName":""#, in: try post(owner, "users/current", ""))
        let sharedZone = #"{"zoneName":"Shared","ownerRecordName":"\#(ownerName)"}"#
        var privateTimes: [Double] = []
        var sharedTimes: [Double] = []
        let saves = 300
        for index in 0..<(saves + 20) {
            var begin = ContinuousClock.now
            try modify(owner, zone: "Plain", [create("p\(index)", parent: "root")])
            let privateTime = Double.milliseconds(since: begin)
            begin = ContinuousClock.now
            try modify(participant, zone: sharedZone, scope: "shared", user: 1, [create("s\(index)", parent: "t0")])
            let sharedTime = Double.milliseconds(since: begin)
            // The first rounds warm connections and caches.
            if index >= 20 {
                privateTimes.append(privateTime)
                sharedTimes.append(sharedTime)
            }
        }
        privateTimes.sort()
        sharedTimes.sort()
        return Result(
            hierarchySize: hierarchySize,
            shareMilliseconds: shareMilliseconds,
            moveOutMilliseconds: moveOut,
            moveInMilliseconds: moveIn,
            saves: saves,
            privateSaveP50: privateTimes[saves / 2],
            sharedSaveP50: sharedTimes[saves / 2]
        )
    }

}
