//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Foundation
import Testing

/// Two `nimbus serve` processes on one database (and one key file), as behind a load balancer:
/// on PostgreSQL when the suite runs there, on one SQLite file otherwise.
@Suite("two nimbus serve processes on one database", .timeLimit(.minutes(2)))
struct TwoServersTests {
    /// A signed-in caller of both servers.
    private struct Client {
        let apiToken: String
        let webAuthToken: String
        let container: String

        /// POSTs `body` to `operation` of the private database on `server`; returns the JSON answer.
        func post(_ server: ServerProcess, _ operation: String, _ body: String) async throws -> [String: Any] {
            let result = try await runProcess("/usr/bin/env", ["curl", "-s", "-X", "POST"] + arguments(server, operation, body))
            let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
            return try #require(object, "not JSON: \(result.stdout)")
        }

        func arguments(_ server: ServerProcess, _ operation: String, _ body: String) -> [String] {
            [
                "--url-query", "ckAPIToken=\(apiToken)", "--url-query", "ckWebAuthToken=\(webAuthToken)", "-d", body,
                "\(server.url)/database/1/\(container)/development/private/\(operation)",
            ]
        }
    }

    @Test("what one server writes the other reads, queries and syncs; racing updates through both get one winner and one CONFLICT")
    func sharedDatabase() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nimbus-two-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let data = DataLocation(directory: directory)
        let first = try await ServerProcess(data)
        let second = try await ServerProcess(data)
        let client = Client(
            apiToken: try #require(first.exported("NIMBUS_API_TOKEN")),
            webAuthToken: try #require(first.exported("NIMBUS_WEB_AUTH_TOKEN")),
            container: try #require(first.exported("NIMBUS_CONTAINER"))
        )
        // Only the first start of a new database prints the quick start.
        #expect(second.exported("NIMBUS_API_TOKEN") == nil)

        _ = try await client.post(first, "zones/modify", #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"Notes"}}}]}"#)
        let created = try await client.post(
            first,
            "records/modify",
            #"{"zoneID":{"zoneName":"Notes"},"operations":[{"operationType":"create","record":{"recordName":"n1","recordType":"Note","fields":{"title":{"value":"from the first"}}}}]}"#
        )
        let tag = try #require((created["records"] as? [[String: Any]])?.first?["recordChangeTag"] as? String)

        // The second server reads it, finds it by query, and syncs it.
        let lookup = try await client.post(second, "records/lookup", #"{"zoneID":{"zoneName":"Notes"},"records":[{"recordName":"n1"}]}"#)
        #expect((lookup["records"] as? [[String: Any]])?.first?["recordChangeTag"] as? String == tag)
        let query = try await client.post(
            second,
            "records/query",
            #"{"zoneID":{"zoneName":"Notes"},"query":{"recordType":"Note","filterBy":[{"comparator":"EQUALS","fieldName":"title","fieldValue":{"value":"from the first"}}]}}"#
        )
        #expect((query["records"] as? [[String: Any]])?.map { $0["recordName"] as? String } == ["n1"])
        let sync = try await client.post(second, "records/changes", #"{"zoneID":{"zoneName":"Notes"}}"#)
        let token = try #require(sync["syncToken"] as? String)

        // Updates racing through both servers with the same change tag: one wins.
        let update = { (title: String) in
            #"{"zoneID":{"zoneName":"Notes"},"operations":[{"operationType":"update","record":{"recordName":"n1","recordType":"Note","recordChangeTag":"\#(tag)","fields":{"title":{"value":"\#(title)"}}}}]}"#
        }
        let quote = { (argument: String) in "'" + argument.replacingOccurrences(of: "'", with: "'\\''") + "'" }
        let curlFirst = (["curl", "-s", "-X", "POST"] + client.arguments(first, "records/modify", update("A"))).map(quote).joined(separator: " ")
        let curlSecond = (["curl", "-s", "-X", "POST"] + client.arguments(second, "records/modify", update("B"))).map(quote).joined(separator: " ")
        let race = try await runProcess(
            "/bin/bash",
            ["-c", "\(curlFirst) > \(directory.path)/a.json & \(curlSecond) > \(directory.path)/b.json & wait"]
        )
        #expect(race.status == 0)
        let answers = try ["a.json", "b.json"].map { name in
            let text = try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
            return try #require((try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])?["records"] as? [[String: Any]])[0]
        }
        let winners = answers.filter { $0["serverErrorCode"] == nil }
        let losers = answers.compactMap { $0["serverErrorCode"] as? String }
        #expect(winners.count == 1 && losers == ["CONFLICT"], "\(answers)")
        let winningTitle = ((winners.first?["fields"] as? [String: Any])?["title"] as? [String: Any])?["value"] as? String

        // The second server's token continues with the winner's change.
        let next = try await client.post(second, "records/changes", #"{"zoneID":{"zoneName":"Notes"},"syncToken":"\#(token)"}"#)
        let changed = next["records"] as? [[String: Any]] ?? []
        #expect(changed.count == 1)
        #expect(((changed.first?["fields"] as? [String: Any])?["title"] as? [String: Any])?["value"] as? String == winningTitle)

        #expect(try await first.stop() == 0)
        #expect(try await second.stop() == 0)
    }
}
