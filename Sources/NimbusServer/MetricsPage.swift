//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Logging
import NimbusEngine
import NimbusModel
import NimbusStore
import Prometheus

/// What `GET /metrics` answers: the request metrics from the registry, each with a `# HELP`
/// line, then gauges read at the scrape: the build, open notification connections, the
/// dispatch backlog and the data's size.
struct MetricsPage: Sendable {
    let registry: PrometheusCollectorRegistry
    let instance: NimbusInstance

    /// The help of every metric Nimbus exports: one place, so none goes undescribed.
    static let help: [String: String] = [
        "nimbus_requests_total": "Database operations answered, by operation.",
        "nimbus_errors_total": "Database operations that failed as a whole, by operation and CloudKit error code.",
        "nimbus_item_errors_total":
            "Items that failed inside a successful answer (a record's CONFLICT, a zone's ZONE_NOT_FOUND), by operation and code.",
        "nimbus_request_duration_seconds": "How long database operations took, by operation.",
        "nimbus_build_info": "The running build: always 1, with its version as a label.",
        "nimbus_notification_listeners": "Open notification connections (WebSocket and long poll) on this instance.",
        "nimbus_notification_backlog": "Committed writes whose notifications are not dispatched yet.",
        "nimbus_storage_bytes": "Bytes the data takes: the SQLite file, or the PostgreSQL schema's tables with their indexes.",
    ]

    func render() async -> String {
        var text = Self.withHelp(registry.emitToString())
        var gauges: [(String, String, Int64)] = [
            ("nimbus_build_info", "{version=\"\(NimbusVersion.current)\"}", 1),
            ("nimbus_notification_listeners", "", Int64(instance.dispatcher.hub.listenerCount)),
        ]
        // A store that cannot answer leaves its gauges out rather than failing the scrape.
        if let statistics = try? await instance.storeStatistics() {
            gauges.append(("nimbus_notification_backlog", "", statistics.pendingChangeEvents))
            gauges.append(("nimbus_storage_bytes", "", statistics.storageBytes))
        }
        for (name, labels, value) in gauges {
            text += "# HELP \(name) \(Self.help[name] ?? "")\n# TYPE \(name) gauge\n\(name)\(labels) \(value)\n"
        }
        return text
    }

    /// The registry's text with a `# HELP` line before each `# TYPE` line of a known metric.
    static func withHelp(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count + 1024)
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("# TYPE "), let name = line.dropFirst(7).split(separator: " ").first, let help = help[String(name)] {
                result += "# HELP \(name) \(help)\n"
            }
            result += line + "\n"
        }
        if result.hasSuffix("\n\n") { result.removeLast() }
        return result
    }
}
