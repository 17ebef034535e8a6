//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Foundation
import HTTPTypes
import HummingbirdTesting
import NimbusTestSupport
import Testing

/// The PostgreSQL cluster of this test, which it stops and starts: `scripts/test` starts it
/// beside the suite's own, with PostgreSQL's durable defaults.
private enum OutageCluster {
    static let url = ProcessInfo.processInfo.environment["NIMBUS_TEST_OUTAGE_DATABASE"]
    static let control = ProcessInfo.processInfo.environment["NIMBUS_TEST_OUTAGE_DATABASE_CONTROL"]

    /// Runs pg_ctl on the cluster (`stop -m immediate`, `start`) to completion.
    static func run(_ arguments: [String]) async throws {
        guard let control else { throw FixtureFailure("no control script") }
        let result = try await ProcessLaunch.runToCompletion(control, arguments)
        guard result.status == 0 else { throw FixtureFailure("pg_ctl \(arguments) exited with status \(result.status): \(result.stderr)") }
    }
}

@Suite(
    "the database going away",
    .enabled(if: OutageCluster.url != nil && OutageCluster.control != nil, "needs the outage cluster scripts/test starts"),
    .timeLimit(.minutes(3))
)
struct DatabaseOutageTests {
    @Test(
        "while PostgreSQL is down requests are TRY_AGAIN_LATER (with retryAfter unless a commit's outcome is unknown); when it returns the server serves again and lost nothing it acknowledged"
    )
    func outageAndRecovery() async throws {
        // A short wait for a connection and a short statement timeout, so requests during the
        // outage fail fast; not so short that opening the store (connect, authenticate, migrate)
        // misses it while the rest of the suite loads the machine.
        let server = try #require(OutageCluster.url).replacing(/wait_timeout=\d+/, with: "wait_timeout=3000") + "&statement_timeout=2000"
        try await HTTPFixture.with(postgresServer: server) { f, client in
            let alice = f.alice.webAuthToken
            let zones = try await client.send(
                .post,
                f.path("zones/modify", user: alice),
                json: #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"Notes"}}}]}"#
            )
            #expect(zones.status == .ok)
            func create(_ name: String) async throws -> TestResponse {
                try await client.send(
                    .post,
                    f.path("records/modify", user: alice),
                    json: #"{"zoneID":{"zoneName":"Notes"},"operations":[{"operationType":"create","record":{"recordName":"\#(name)","#
                        + #""recordType":"Note"}}]}"#
                )
            }
            var acknowledged: [String] = []
            var unavailable = 0
            var stopper: Task<Void, any Error>?
            // Writes go on while the cluster is stopped under them (immediately: connections
            // are cut, as when the database host fails).
            for index in 0..<200 where unavailable < 3 {
                if index == 3 { stopper = Task { try await OutageCluster.run(["stop", "-m", "immediate"]) } }
                let response = try await create("r\(index)")
                if response.status == .ok {
                    let saved = (try response.json["records"] as? [[String: Any]])?.first
                    #expect(saved?["serverErrorCode"] == nil, "a record failed on its own: \(String(describing: saved))")
                    acknowledged.append("r\(index)")
                } else {
                    try response.expectError("TRY_AGAIN_LATER", status: .serviceUnavailable)
                    // A write cut off during its commit may have been made: that answer has no
                    // retryAfter, and says so; every other says when to try again.
                    let reason = try response.json["reason"] as? String ?? ""
                    #expect((try response.json["retryAfter"] as? Int ?? 0) >= 1 || reason.contains("may or may not"), "\(reason)")
                    unavailable += 1
                }
            }
            try await stopper?.value
            #expect(unavailable == 3, "the outage was never seen")
            // Reads and authentication fail the same way: not as a missing zone or a bad token.
            let lookup = try await client.send(
                .post,
                f.path("records/lookup", user: alice),
                json: #"{"zoneID":{"zoneName":"Notes"},"records":[{"recordName":"r0"}]}"#
            )
            try lookup.expectError("TRY_AGAIN_LATER", status: .serviceUnavailable)
            try await OutageCluster.run(["start"])
            // The pool reconnects on its own; the first requests may still meet its back-off.
            let deadline = ContinuousClock.now + .seconds(60)
            var recovered = false
            var attempt = 0
            while !recovered && ContinuousClock.now < deadline {
                attempt += 1
                let response = try await create("after\(attempt)")
                recovered = response.status == .ok
                if !recovered { try await Task.sleep(for: .milliseconds(200)) }
            }
            #expect(recovered, "the server did not recover within a minute of the database's return")
            let all = try await client.send(
                .post,
                f.path("records/lookup", user: alice),
                json: #"{"zoneID":{"zoneName":"Notes"},"records":[\#(acknowledged.map { #"{"recordName":"\#($0)"}"# }.joined(separator: ","))]}"#
            )
            #expect(all.status == .ok)
            let found = (try all.json["records"] as? [[String: Any]]) ?? []
            #expect(found.count == acknowledged.count)
            #expect(found.allSatisfy { $0["serverErrorCode"] == nil }, "an acknowledged write was lost: \(found)")
        }
    }
}
