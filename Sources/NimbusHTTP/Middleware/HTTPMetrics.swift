//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import CoreMetrics
import NimbusModel
import Synchronization

/// The request metrics `/metrics` exposes: counts per operation, errors per code, and latency.
///
/// Metric objects are made once per operation and code and kept, so a request only touches
/// counters it already holds.
public final class HTTPMetrics: Sendable {
    private let factory: any MetricsFactory
    private let requests = Mutex<[String: Counter]>([:])
    private let errors = Mutex<[String: Counter]>([:])
    private let itemErrors = Mutex<[String: Counter]>([:])
    private let latency = Mutex<[String: Timer]>([:])

    /// The server's own per-minute record of the same requests, for the console.
    public let telemetry: RequestTelemetry

    /// Creates the metrics, registering them with `factory` (a Prometheus one in the server).
    public init(factory: any MetricsFactory, telemetry: RequestTelemetry) {
        self.factory = factory
        self.telemetry = telemetry
    }

    /// Records one request: its operation, how long it took, and its error code if it failed.
    func record(operation: String, nanoseconds: Int64, errorCode: String?) {
        counter(in: requests, key: operation, label: "nimbus_requests_total", dimensions: [("operation", operation)])
            .increment()
        timer(for: operation).recordNanoseconds(nanoseconds)
        telemetry.record(operation: operation, nanoseconds: nanoseconds, errorCode: errorCode)
        if let errorCode {
            counter(
                in: errors,
                key: operation + "|" + errorCode,
                label: "nimbus_errors_total",
                dimensions: [("operation", operation), ("code", errorCode)]
            ).increment()
        }
    }

    /// Records one item's error inside a successful response (a record's `CONFLICT` in a
    /// `records/modify`, a zone's `ZONE_NOT_FOUND` in a `zones/lookup`): CloudKit answers those
    /// with HTTP 200, so the request counts no error of its own.
    func recordItemError(operation: String, code: String) {
        counter(
            in: itemErrors,
            key: operation + "|" + code,
            label: "nimbus_item_errors_total",
            dimensions: [("operation", operation), ("code", code)]
        ).increment()
    }

    private func counter(
        in storage: borrowing Mutex<[String: Counter]>,
        key: String,
        label: String,
        dimensions: [(String, String)]
    ) -> Counter {
        storage.withLock { counters in
            if let counter = counters[key] { return counter }
            let counter = Counter(label: label, dimensions: dimensions, factory: factory)
            counters[key] = counter
            return counter
        }
    }

    private func timer(for operation: String) -> Timer {
        latency.withLock { timers in
            if let timer = timers[operation] { return timer }
            let timer = Timer(label: "nimbus_request_duration_seconds", dimensions: [("operation", operation)], factory: factory)
            timers[operation] = timer
            return timer
        }
    }
}
