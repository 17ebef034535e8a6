//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The server's own record of its requests for the console's charts: per minute and per
/// operation, how many, how many failed by error code, and their latencies, for the last day.
/// No Prometheus is needed to look; `/metrics` exports the same counts for one.
///
/// Latencies go into fixed logarithmic buckets (each 1.25 times the one before, from 50 µs),
/// so a minute of any number of requests takes the same small memory and its percentiles are
/// within a bucket's width of the truth.
public final class RequestTelemetry: Sendable {
    /// One operation's requests within a span of time.
    public struct Figures: Sendable, Equatable {
        /// Requests answered.
        public var count = 0
        /// Requests that failed, by CloudKit error code.
        public var errors: [String: Int] = [:]
        /// How many took each bucket's latency.
        var latencies = [Int](repeating: 0, count: RequestTelemetry.bucketCount)

        /// Requests that failed.
        public var errorCount: Int { errors.values.reduce(0, +) }

        /// The latency at or under which `fraction` of the requests finished, in milliseconds
        /// (a bucket's upper bound), or `nil` without requests.
        public func latencyMilliseconds(atFraction fraction: Double) -> Double? {
            guard count > 0 else { return nil }
            let wanted = max(1, Int((Double(count) * fraction).rounded(.up)))
            var seen = 0
            for (bucket, number) in latencies.enumerated() {
                seen += number
                if seen >= wanted { return RequestTelemetry.upperBoundNanoseconds(of: bucket) / 1_000_000 }
            }
            return RequestTelemetry.upperBoundNanoseconds(of: RequestTelemetry.bucketCount - 1) / 1_000_000
        }

        mutating func add(_ other: Figures) {
            count += other.count
            errors.merge(other.errors, uniquingKeysWith: +)
            for index in latencies.indices { latencies[index] += other.latencies[index] }
        }
    }

    /// One minute of requests, by operation.
    public struct Minute: Sendable {
        /// The minute's start, in minutes since 1970.
        public var minute: Int64
        /// Its figures by operation.
        public var operations: [String: Figures]

        /// All operations' figures together.
        public var total: Figures {
            operations.values.reduce(into: Figures()) { $0.add($1) }
        }
    }

    static let bucketCount = 80
    private static let smallestNanoseconds = 50_000.0
    private static let growth = 1.25
    /// A day of minutes.
    private static let kept = 24 * 60

    private let now: @Sendable () -> Int64
    private let minutes = Mutex<[Minute]>([])

    /// Creates an empty record.
    /// - Parameter now: The time in milliseconds since 1970 (the server's clock).
    public init(now: @escaping @Sendable () -> Int64) {
        self.now = now
    }

    /// Records one request.
    func record(operation: String, nanoseconds: Int64, errorCode: String?) {
        let minute = now() / 60_000
        let bucket = Self.bucket(ofNanoseconds: nanoseconds)
        minutes.withLock { minutes in
            if minutes.last?.minute != minute {
                minutes.append(Minute(minute: minute, operations: [:]))
                if minutes.count > Self.kept { minutes.removeFirst(minutes.count - Self.kept) }
            }
            let last = minutes.count - 1
            var figures = minutes[last].operations[operation] ?? Figures()
            figures.count += 1
            figures.latencies[bucket] += 1
            if let errorCode { figures.errors[errorCode, default: 0] += 1 }
            minutes[last].operations[operation] = figures
        }
    }

    /// The minutes of the last `span` minutes (the current one included), oldest first, with an
    /// empty minute where nothing was asked.
    public func minutes(last span: Int) -> [Minute] {
        let current = now() / 60_000
        let first = current - Int64(span) + 1
        let recorded = minutes.withLock { $0.filter { $0.minute >= first } }
        var byMinute: [Int64: Minute] = [:]
        for minute in recorded { byMinute[minute.minute] = minute }
        return (first...current).map { byMinute[$0] ?? Minute(minute: $0, operations: [:]) }
    }

    /// Each operation's figures over the last `span` minutes.
    public func operations(last span: Int) -> [String: Figures] {
        minutes(last: span).reduce(into: [:]) { result, minute in
            for (operation, figures) in minute.operations { result[operation, default: Figures()].add(figures) }
        }
    }

    static func bucket(ofNanoseconds nanoseconds: Int64) -> Int {
        guard Double(nanoseconds) > smallestNanoseconds else { return 0 }
        let index = Int((log(Double(nanoseconds) / smallestNanoseconds) / log(growth)).rounded(.up))
        return min(index, bucketCount - 1)
    }

    static func upperBoundNanoseconds(of bucket: Int) -> Double {
        smallestNanoseconds * pow(growth, Double(bucket))
    }
}
