//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import AsyncHTTPClient
import Foundation
import NIOCore
import NimbusClient
import NimbusModel
import Synchronization

/// What the SDK adds to a request: a 200-record batch save through `Database.modifyRecords`
/// against the same request sent raw (the body's bytes prepared beforehand, the response read
/// but not parsed), both over AsyncHTTPClient's shared client, one at a time, alternating (and
/// alternating which goes first).
enum SDKBenchmark {
    struct Result {
        var rounds: Int
        var sdkP50: Double
        var rawP50: Double
        /// The SDK's own work in a save: its time less the time its transport took.
        var sdkWorkP50: Double
        /// The time the SDK's transport took in a save: the exchange the raw request also makes.
        var sdkTransportP50: Double
    }

    /// The SDK's transport, timing each exchange: what is left of an SDK save is the SDK's work.
    final class TimedTransport: ClientTransport {
        private let base = HTTPClientTransport()
        private let elapsed = Mutex(Duration.zero)

        func send(_ request: ClientRequest) async throws -> ClientResponse {
            let clock = ContinuousClock()
            let start = clock.now
            defer { elapsed.withLock { $0 += clock.now - start } }
            return try await base.send(request)
        }

        /// The time spent in exchanges since the last call.
        func takeElapsed() -> Duration {
            elapsed.withLock { value in
                defer { value = .zero }
                return value
            }
        }
    }

    static let recordsPerBatch = 200

    static func run(session: LoadSession, rounds: Int = 200) async throws -> Result {
        let zone = ZoneID(zoneName: "SDKBench", ownerRecordName: "")
        let transport = TimedTransport()
        let container = Container(
            serverURL: session.url,
            identifier: LoadSession.container,
            authentication: .apiToken(session.apiToken, webAuthToken: session.webAuthTokens[2 % session.webAuthTokens.count]),
            transport: transport,
            retryPolicy: .never
        )
        let database = container.privateCloudDatabase
        try await database.save(zones: [zone])
        let rawURL = session.url + session.privatePath("records/modify", user: 2 % session.webAuthTokens.count)
        var sdkTimes: [Double] = []
        var rawTimes: [Double] = []
        var sdkWorkTimes: [Double] = []
        var sdkTransportTimes: [Double] = []
        let clock = ContinuousClock()
        for round in 0..<(rounds + 2) {
            let records = (0..<recordsPerBatch).map { index in
                Record(
                    recordType: "Note",
                    recordID: RecordID(recordName: "sdk-\(round)-\(index)", zoneID: zone),
                    fields: ["title": .string("load \(round)-\(index)"), "count": .int64(Int64(index))]
                )
            }
            var sdkWork = Duration.zero
            var sdkTransport = Duration.zero
            func sdkSave() async throws -> Duration {
                let start = clock.now
                _ = transport.takeElapsed()
                let result = try await database.modifyRecords(saving: records, atomically: false)
                let elapsed = clock.now - start
                sdkTransport = transport.takeElapsed()
                sdkWork = elapsed - sdkTransport
                guard result.saveResults.values.allSatisfy({ (try? $0.get()) != nil }) else { throw LoadError("an SDK save failed") }
                return elapsed
            }

            let operations = (0..<recordsPerBatch).map { index in
                #"{"operationType":"create","record":{"recordName":"raw-\#(round)-\#(index)","recordType":"Note","fields":{"title":{"value":"load \#(round)-\#(index)","type":"STRING"},"count":{"value":\#(index),"type":"INT64"}}}}"#
            }
            // The request the SDK sends: system fields only asked back (`desiredKeys`).
            let body = Array(
                #"{"zoneID":{"zoneName":"SDKBench"},"atomic":false,"operations":[\#(operations.joined(separator: ","))],"desiredKeys":[]}"#.utf8
            )
            func rawSave() async throws -> Duration {
                var request = HTTPClientRequest(url: rawURL)
                request.method = .POST
                request.headers.add(name: "Content-Type", value: "application/json")
                let start = clock.now
                request.body = .bytes(ByteBuffer(bytes: body))
                let response = try await HTTPClient.shared.execute(request, timeout: .seconds(60))
                let answer = try await response.body.collect(upTo: 64 << 20)
                let elapsed = clock.now - start
                guard response.status.code == 200, answer.readableBytes > 0 else { throw LoadError("a raw save failed: \(response.status)") }
                return elapsed
            }
            // Which goes first alternates, so neither always follows the other's commit.
            let sdkElapsed: Duration
            let rawElapsed: Duration
            if round.isMultiple(of: 2) {
                sdkElapsed = try await sdkSave()
                rawElapsed = try await rawSave()
            } else {
                rawElapsed = try await rawSave()
                sdkElapsed = try await sdkSave()
            }
            // The first two rounds warm up connections and caches.
            if round >= 2 {
                sdkTimes.append(milliseconds(sdkElapsed))
                rawTimes.append(milliseconds(rawElapsed))
                sdkWorkTimes.append(milliseconds(sdkWork))
                sdkTransportTimes.append(milliseconds(sdkTransport))
            }
        }
        return Result(
            rounds: rounds,
            sdkP50: median(sdkTimes),
            rawP50: median(rawTimes),
            sdkWorkP50: median(sdkWorkTimes),
            sdkTransportP50: median(sdkTransportTimes)
        )
    }

    private static func milliseconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
    }

    private static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
    }
}
