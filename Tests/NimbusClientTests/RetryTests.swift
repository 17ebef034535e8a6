//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Foundation
import NimbusClient
import NimbusModel
import NimbusTestSupport
import NimbusTesting
import Synchronization
import Testing

@Suite("NimbusClient: retries, against a scripted transport")
struct RetryTests {
    private func container(
        _ transport: ScriptedTransport,
        _ policy: RetryPolicy = RetryPolicy(initialDelay: .milliseconds(10)),
        clock: any Clock<Duration> = ContinuousClock()
    ) -> Container {
        Container(
            serverURL: "http://nimbus.test",
            identifier: "iCloud.com.example.app",
            authentication: .apiToken(String(repeating: "a", count: 64), webAuthToken: "token/with+plus="),
            transport: transport,
            retryPolicy: policy,
            clock: clock
        )
    }

    private static let zones = #"{"zones":[{"zoneID":{"zoneName":"_defaultZone","ownerRecordName":"_u"}}]}"#

    @Test("TRY_AGAIN_LATER with retryAfter is retried after the server's delay, and the caller sees only the success")
    func honoursRetryAfter() async throws {
        let transport = ScriptedTransport([
            .response(status: 503, body: #"{"uuid":"1","serverErrorCode":"TRY_AGAIN_LATER","reason":"busy","retryAfter":1}"#),
            .response(status: 200, body: Self.zones),
        ])
        let clock = ManualClock()
        let database = container(transport, clock: clock).privateCloudDatabase
        async let zones = database.allZones()
        // The SDK waits out the server's second on the clock; nothing is sent again before it
        // passes, and once it has, the retry comes (so the first check could fail).
        await clock.waitForSleeper(until: clock.now.advanced(by: .seconds(1)))
        #expect(transport.requests.count == 1, "the retry came before the server's retryAfter")
        clock.advance(by: .seconds(1))
        #expect(try await zones.map(\.zoneName) == ["_defaultZone"])
        #expect(transport.requests.count == 2)
    }

    @Test("THROTTLED, timeouts and dropped connections are retried until the policy's last attempt")
    func givesUpAfterTheLastAttempt() async throws {
        let transport = ScriptedTransport([
            .dropConnection,
            .response(status: 429, body: #"{"uuid":"1","serverErrorCode":"THROTTLED","reason":"slow down","retryAfter":0.01}"#),
            .timeout,
            .response(status: 503, body: #"{"uuid":"2","serverErrorCode":"TRY_AGAIN_LATER","reason":"still busy","retryAfter":0.01}"#),
            .response(status: 200, body: Self.zones),
        ])
        let error = try await #require(throws: NimbusError.self) {
            try await container(transport, RetryPolicy(maximumAttempts: 4, initialDelay: .milliseconds(1))).privateCloudDatabase.allZones()
        }
        #expect(error.code == .serviceUnavailable)
        #expect(error.reason == "still busy")
        #expect(transport.requests.count == 4)
        #expect(transport.remainingSteps.count == 1)
    }

    @Test("TRY_AGAIN_LATER without retryAfter: a read is retried after a back-off, a write is not")
    func withoutRetryAfter() async throws {
        let busy = ScriptedTransport.Step.response(
            status: 503,
            body: #"{"uuid":"1","serverErrorCode":"TRY_AGAIN_LATER","reason":"down for maintenance"}"#
        )
        let reads = ScriptedTransport([busy, .response(status: 200, body: Self.zones)])
        #expect(try await container(reads).privateCloudDatabase.allZones().count == 1)
        #expect(reads.requests.count == 2)

        let writes = ScriptedTransport([busy, .response(status: 200, body: #"{"records":[]}"#)])
        let zone = ZoneID(zoneName: "Notes", ownerRecordName: "")
        let error = try await #require(throws: NimbusError.self) {
            try await container(writes).privateCloudDatabase.save(Record(recordType: "Note", recordID: RecordID(recordName: "n", zoneID: zone)))
        }
        #expect(error.code == .serviceUnavailable)
        #expect(writes.requests.count == 1)
    }

    @Test("a retryAfter longer than the policy's longest wait reaches the caller, not an early retry")
    func longRetryAfterReachesTheCaller() async throws {
        let transport = ScriptedTransport([
            .response(status: 429, body: #"{"uuid":"1","serverErrorCode":"THROTTLED","reason":"come back in two minutes","retryAfter":120}"#),
            .response(status: 200, body: Self.zones),
        ])
        let started = ContinuousClock.now
        let error = try await #require(throws: NimbusError.self) { try await container(transport).privateCloudDatabase.allZones() }
        #expect(error.code == .requestRateLimited)
        #expect(error.retryAfter == .seconds(120))
        #expect(transport.requests.count == 1)
        #expect(ContinuousClock.now - started < .seconds(30))
    }

    @Test("a proxy's 503 without a CloudKit error: a read is retried after its Retry-After; a write is not, nor told to retry")
    func proxyUnavailable() async throws {
        let busy = ScriptedTransport.Step.response(status: 503, headers: ["Retry-After": "1"], body: "<html>Service Unavailable</html>")
        let reads = ScriptedTransport([busy, .response(status: 200, body: Self.zones)])
        let clock = ManualClock()
        let database = container(reads, clock: clock).privateCloudDatabase
        async let zones = database.allZones()
        await clock.waitForSleeper(until: clock.now.advanced(by: .seconds(1)))
        #expect(reads.requests.count == 1, "the retry came before the proxy's Retry-After")
        clock.advance(by: .seconds(1))
        #expect(try await zones.count == 1)
        #expect(reads.requests.count == 2)

        let writes = ScriptedTransport([busy, .response(status: 200, body: #"{"records":[]}"#)])
        let zone = ZoneID(zoneName: "Notes", ownerRecordName: "")
        let error = try await #require(throws: NimbusError.self) {
            try await container(writes).privateCloudDatabase.save(Record(recordType: "Note", recordID: RecordID(recordName: "n", zoneID: zone)))
        }
        #expect(error.code == .serviceUnavailable)
        #expect(error.retryAfter == nil, "the write may have been done: the caller is not told to send it again")
        #expect(writes.requests.count == 1)
    }

    @Test("a gateway's JSON error is a proxy's answer; a proxy's 429 is retried after its Retry-After, even for a write")
    func proxyJSONAndRateLimit() async throws {
        let gateway = ScriptedTransport([
            .response(status: 502, body: #"{"message":"Bad Gateway"}"#), .response(status: 200, body: Self.zones),
        ])
        #expect(try await container(gateway).privateCloudDatabase.allZones().count == 1)
        #expect(gateway.requests.count == 2)

        let limited = ScriptedTransport([
            .response(status: 429, headers: ["Retry-After": "0"], body: "slow down"),
            .response(status: 200, body: #"{"records":[{"recordName":"n","recordType":"Note","recordChangeTag":"1","fields":{}}]}"#),
        ])
        let zone = ZoneID(zoneName: "Notes", ownerRecordName: "")
        let saved = try await container(limited).privateCloudDatabase.save(
            Record(recordType: "Note", recordID: RecordID(recordName: "n", zoneID: zone))
        )
        #expect(saved.recordChangeTag == "1")
        #expect(limited.requests.count == 2)
    }

    @Test("a request after the script's last step fails the call with an error naming it, and is not retried")
    func exhaustedScript() async throws {
        let transport = ScriptedTransport([])
        let error = try await #require(throws: NimbusError.self) { try await container(transport).privateCloudDatabase.allZones() }
        #expect(error.code == .internalError)
        #expect(error.reason.contains("no step left for request 1"), "\(error.reason)")
        #expect(error.reason.contains("zones/list"), "\(error.reason)")
        #expect(transport.requests.count == 1)
    }

    @Test("errors that cannot succeed on a retry reach the caller at once")
    func noRetryOfClientErrors() async throws {
        let transport = ScriptedTransport([
            .response(
                status: 400,
                body: #"{"uuid":"1","serverErrorCode":"BAD_REQUEST","reason":"token too old","nimbusErrorCode":"CHANGE_TOKEN_EXPIRED"}"#
            )
        ])
        let error = try await #require(throws: NimbusError.self) {
            try await container(transport).privateCloudDatabase.fetchDatabaseChanges(since: "old")
        }
        #expect(error.code == .changeTokenExpired)
        #expect(transport.requests.count == 1)
    }

    @Test("the web auth token is sent percent-encoded, and the replacement each response names is used next")
    func followsTokenRotation() async throws {
        let transport = ScriptedTransport([
            .response(status: 200, headers: ["X-Apple-CloudKit-Web-Auth-Token": "second+token"], body: Self.zones),
            .response(status: 200, body: Self.zones),
        ])
        let container = container(transport)
        _ = try await container.privateCloudDatabase.allZones()
        _ = try await container.privateCloudDatabase.allZones()
        let urls = transport.requests.map(\.url)
        #expect(urls[0].hasSuffix("ckWebAuthToken=token%2Fwith%2Bplus%3D"))
        #expect(urls[1].hasSuffix("ckWebAuthToken=second%2Btoken"))
        #expect(container.webAuthToken == "second+token")
        #expect(urls[0].hasPrefix("http://nimbus.test/database/1/iCloud.com.example.app/development/private/zones/list?ckAPIToken="))
    }

    @Test("a script survives a round trip through JSON")
    func scriptIsCodable() throws {
        let steps: [ScriptedTransport.Step] = [
            .dropConnection, .timeout, .delayed(milliseconds: 5, .response(status: 200, headers: ["A": "b"], body: "{}")),
        ]
        let decoded = try JSONDecoder().decode([ScriptedTransport.Step].self, from: JSONEncoder().encode(steps))
        #expect(decoded == steps)
    }

    @Test("a write whose response never came is not sent again: it may have committed")
    func writesAreNotResentAfterADroppedConnection() async throws {
        let transport = ScriptedTransport([.dropConnection, .response(status: 200, body: #"{"records":[]}"#)])
        let zone = ZoneID(zoneName: "Notes", ownerRecordName: "")
        let error = try await #require(throws: NimbusError.self) {
            try await container(transport).privateCloudDatabase.save(Record(recordType: "Note", recordID: RecordID(recordName: "n", zoneID: zone)))
        }
        #expect(error.code == .serviceUnavailable)
        #expect(transport.requests.count == 1)
    }

    @Test("a slow response echoing the old token does not undo a rotation another response brought")
    func staleEchoDoesNotUndoRotation() async throws {
        let transport = GatedTransport()
        let container = container(ScriptedTransport([]))
        let gated = Container(
            serverURL: container.serverURL,
            identifier: container.identifier,
            authentication: .apiToken(String(repeating: "a", count: 64), webAuthToken: "first"),
            transport: transport
        )
        // The first request waits; the second answers with a new token; then the first answers
        // echoing the token it was sent.
        async let slow = gated.privateCloudDatabase.allZones()
        await transport.waitForFirstRequest()
        _ = try await gated.privateCloudDatabase.allZones()
        #expect(gated.webAuthToken == "second")
        transport.releaseFirst()
        _ = try await slow
        #expect(gated.webAuthToken == "second")
    }
}

/// Holds its first request until released; answers the others at once with a rotated token.
private final class GatedTransport: ClientTransport {
    private let state = Mutex<(count: Int, arrived: CheckedContinuation<Void, Never>?, release: CheckedContinuation<Void, Never>?, hasArrived: Bool)>(
        (0, nil, nil, false)
    )
    private static let zones = #"{"zones":[{"zoneID":{"zoneName":"_defaultZone","ownerRecordName":"_u"}}]}"#

    func waitForFirstRequest() async {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state -> Bool in
                if state.hasArrived { return true }
                state.arrived = continuation
                return false
            }
            if ready { continuation.resume() }
        }
    }

    func releaseFirst() {
        state.withLock { $0.release.take() }?.resume()
    }

    func send(_ request: ClientRequest) async throws -> ClientResponse {
        let number = state.withLock { state -> Int in
            state.count += 1
            return state.count
        }
        guard number == 1 else {
            return ClientResponse(status: 200, headers: ["X-Apple-CloudKit-Web-Auth-Token": "second"], body: Array(Self.zones.utf8))
        }
        await withCheckedContinuation { continuation in
            let arrived = state.withLock { state -> CheckedContinuation<Void, Never>? in
                state.release = continuation
                state.hasArrived = true
                return state.arrived.take()
            }
            arrived?.resume()
        }
        return ClientResponse(status: 200, headers: ["X-Apple-CloudKit-Web-Auth-Token": "first"], body: Array(Self.zones.utf8))
    }
}
