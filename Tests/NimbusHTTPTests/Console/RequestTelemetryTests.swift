//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Synchronization
import Testing

@testable import NimbusHTTP

/// The server's own record of its requests, which the console's charts read.
@Suite("console: request telemetry")
struct RequestTelemetryTests {
    final class TestTime: Sendable {
        let milliseconds = Mutex<Int64>(1_800_000_000_000)
        func advance(minutes: Int64) { milliseconds.withLock { $0 += minutes * 60_000 } }
    }

    @Test("percentiles fall within a bucket of the truth, and errors are counted by code")
    func percentiles() throws {
        let time = TestTime()
        let telemetry = RequestTelemetry(now: { time.milliseconds.withLock { $0 } })
        for millisecond in 1...100 {
            telemetry.record(operation: "records/query", nanoseconds: Int64(millisecond) * 1_000_000, errorCode: millisecond > 95 ? "THROTTLED" : nil)
        }
        telemetry.record(operation: "records/modify", nanoseconds: 2_000_000, errorCode: nil)
        let figures = try #require(telemetry.operations(last: 60)["records/query"])
        #expect(figures.count == 100)
        #expect(figures.errors == ["THROTTLED": 5])
        let p50 = try #require(figures.latencyMilliseconds(atFraction: 0.5))
        let p99 = try #require(figures.latencyMilliseconds(atFraction: 0.99))
        // A bucket's upper bound: at most 25% over the true value, never under it.
        #expect(p50 >= 50 && p50 <= 50 * 1.25, "p50 \(p50)")
        #expect(p99 >= 99 && p99 <= 99 * 1.25, "p99 \(p99)")
        #expect(telemetry.operations(last: 60)["records/modify"]?.count == 1)
    }

    @Test("minutes come in order with empty ones filled, and a day later the old ones are gone")
    func window() {
        let time = TestTime()
        let telemetry = RequestTelemetry(now: { time.milliseconds.withLock { $0 } })
        telemetry.record(operation: "zones/list", nanoseconds: 1_000_000, errorCode: nil)
        time.advance(minutes: 3)
        telemetry.record(operation: "zones/list", nanoseconds: 1_000_000, errorCode: nil)
        telemetry.record(operation: "zones/list", nanoseconds: 1_000_000, errorCode: nil)
        let minutes = telemetry.minutes(last: 5)
        #expect(minutes.count == 5)
        #expect(minutes.map(\.total.count) == [0, 1, 0, 0, 2])
        #expect(telemetry.operations(last: 2)["zones/list"]?.count == 2)
        time.advance(minutes: 24 * 60)
        #expect(telemetry.operations(last: 24 * 60).isEmpty)
    }
}
