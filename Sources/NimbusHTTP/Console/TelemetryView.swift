//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

/// The telemetry page's figures and charts, from ``RequestTelemetry``'s minutes.
enum TelemetryView {
    /// Requests, rate, error share and latencies of a span, as the page writes them.
    static func summary(_ figures: RequestTelemetry.Figures, seconds: Int) -> [String: Any] {
        [
            "count": figures.count,
            "perSecond": decimal(Double(figures.count) / Double(seconds)),
            "errorRate": figures.count == 0 ? "–" : decimal(100 * Double(figures.errorCount) / Double(figures.count)) + "%",
            "p50": figures.latencyMilliseconds(atFraction: 0.5).map { decimal($0) + " ms" } ?? "–",
            "p99": figures.latencyMilliseconds(atFraction: 0.99).map { decimal($0) + " ms" } ?? "–",
        ]
    }

    /// The page's values for the last hour (a bar a minute) or day (a bar per 20 minutes).
    static func page(_ telemetry: RequestTelemetry, day: Bool) -> [String: Any] {
        let minutes = telemetry.minutes(last: day ? 24 * 60 : 60)
        let perBar = day ? 20 : 1
        let buckets = stride(from: 0, to: minutes.count, by: perBar).map { start in
            minutes[start..<min(start + perBar, minutes.count)].reduce(into: RequestTelemetry.Figures()) { $0.add($1.total) }
        }
        let seconds = Double(perBar * 60)
        let charts: [[String: Any]] = [
            chart("Requests per second", kind: "requests", buckets.map { Double($0.count) / seconds }, unit: "/s"),
            chart("Latency p50", kind: "p50", buckets.map { $0.latencyMilliseconds(atFraction: 0.5) ?? 0 }, unit: " ms"),
            chart("Latency p99", kind: "p99", buckets.map { $0.latencyMilliseconds(atFraction: 0.99) ?? 0 }, unit: " ms"),
            chart("Errors per second", kind: "errors", buckets.map { Double($0.errorCount) / seconds }, unit: "/s"),
        ]
        let spanSeconds = minutes.count * 60
        let operations = telemetry.operations(last: minutes.count).sorted { $0.key < $1.key }.map { name, figures -> [String: Any] in
            var row = summary(figures, seconds: spanSeconds)
            row["name"] = name
            row["codes"] = figures.errors.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
            return row
        }
        return [
            "charts": charts,
            "operations": operations,
            "isHour": !day,
            "isDay": day,
            "bucketName": day ? "20 minutes" : "minute",
        ]
    }

    private static let width = 600.0
    private static let height = 100.0

    /// Bars scaled to the highest; each with its value in a tooltip.
    private static func chart(_ caption: String, kind: String, _ values: [Double], unit: String) -> [String: Any] {
        let highest = values.max() ?? 0
        let barWidth = width / Double(max(values.count, 1))
        let bars = values.enumerated().compactMap { index, value -> [String: Any]? in
            guard value > 0, highest > 0 else { return nil }
            let barHeight = max(1, height * value / highest)
            return [
                "x": decimal(Double(index) * barWidth),
                "y": decimal(height - barHeight),
                "w": decimal(max(barWidth - 1, 0.5)),
                "h": decimal(barHeight),
                "kind": kind,
                "label": decimal(value) + unit,
            ]
        }
        return [
            "caption": caption, "bars": bars, "width": Int(width), "height": Int(height),
            "highest": decimal(highest) + unit,
        ]
    }

    /// At most two decimals, none for whole numbers.
    static func decimal(_ value: Double) -> String {
        let hundredths = Int((value * 100).rounded())
        if hundredths % 100 == 0 { return String(hundredths / 100) }
        let fraction = hundredths % 100
        return "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction % 10 == 0 ? String(fraction / 10) : String(fraction))"
    }
}
