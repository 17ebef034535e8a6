//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Foundation

/// Prints the figures as a Markdown table, with the ratios BENCHMARKS.md records.
enum Report {
    static func print(results: [ScenarioResult], raw: RawInsertRates, clients: Int, users: Int, seconds: Int) {
        let health = results.first { $0.scenario.name == "health" }
        var lines = [
            "clients: \(clients) keep-alive connections as \(users) users; \(seconds) s per scenario; machine: \(ProcessInfo.processInfo.activeProcessorCount) cores",
            "",
            "| scenario | requests/s | records/s | p50 ms | p99 ms | failed | vs /health | vs raw \(raw.store) | server CPU µs/request | database CPU µs/request |",
            "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
        ]
        for result in results {
            let versusHealth = health.map { String(format: "%.0f%%", 100 * result.requestsPerSecond / $0.requestsPerSecond) } ?? "-"
            let versusRaw: String
            switch result.scenario.name {
            case "save1", "save1-s2s", "pocketbase": versusRaw = String(format: "%.0f%%", 100 * result.recordsPerSecond / raw.singleRowTransactions)
            case "save200": versusRaw = String(format: "%.0f%%", 100 * result.recordsPerSecond / raw.batchedTransactions)
            default: versusRaw = "-"
            }
            lines.append(
                "| \(result.scenario.summary) | \(format(result.requestsPerSecond)) | \(result.scenario.recordsPerRequest == 0 ? "-" : format(result.recordsPerSecond)) | "
                    + String(format: "%.2f | %.2f", Double(result.p50Microseconds) / 1000, Double(result.p99Microseconds) / 1000)
                    + " | \(result.failures) | \(result.scenario.name == "health" ? "-" : versusHealth) | \(versusRaw) | "
                    + String(format: "%.0f", result.serverCPUMicrosecondsPerRequest) + " | "
                    + (result.databaseCPUMicrosecondsPerRequest.map { String(format: "%.0f", $0) } ?? "-") + " |"
            )
        }
        if let pocketBase = results.first(where: { $0.scenario.name == "pocketbase" }),
            let save = results.first(where: { $0.scenario.name == "save1" })
        {
            lines.append("")
            lines.append(String(format: "Nimbus single saves: %.2f× PocketBase's creates", save.requestsPerSecond / pocketBase.requestsPerSecond))
        }
        lines.append("")
        lines.append(
            "raw \(raw.store), same schema: \(format(raw.singleRowTransactions)) rows/s one row per transaction; \(format(raw.batchedTransactions)) rows/s 200 rows per transaction"
        )
        Swift.print(lines.joined(separator: "\n"))
    }

    static func print(sync: SyncBenchmark.Result) {
        let rate = Double(sync.initialRecords) / sync.initialSeconds
        let raw = Double(sync.initialRecords) / sync.rawReadSeconds
        var lines = [
            "",
            "sync from scratch, one client, records/changes pages of 200 over HTTP:",
            "\(format(Double(sync.initialRecords))) records in \(sync.pages) pages, "
                + String(format: "%.2f s", sync.initialSeconds) + ": \(format(rate)) records/s"
                + " (raw SQLite read of the same rows in change order: \(format(raw)) rows/s; ratio "
                + String(format: "%.0f%%", 100 * rate / raw) + ")",
            "",
            "incremental sync of 100 changes (one records/changes call), 20 rounds:",
            "| zone size | p50 ms | max ms |",
            "|---:|---:|---:|",
        ]
        for item in sync.incremental {
            lines.append("| \(format(Double(item.zoneSize))) | " + String(format: "%.2f | %.2f |", item.p50Milliseconds, item.maxMilliseconds))
        }
        Swift.print(lines.joined(separator: "\n"))
    }

    static func print(queries: [QueryBenchmark.Timing]) {
        var lines = [
            "",
            "records/query in zones of messages, one client over one keep-alive connection:",
            "| zone size | query | runs | p50 ms | p99 ms | raw SQLite p50 ms |",
            "|---:|---|---:|---:|---:|---:|",
        ]
        for timing in queries {
            let raw = timing.rawP50Milliseconds.map { String(format: "%.2f", $0) } ?? "–"
            lines.append(
                "| \(format(Double(timing.zoneSize))) | \(timing.query) | \(timing.runs) | "
                    + String(format: "%.2f | %.2f | ", timing.p50Milliseconds, timing.p99Milliseconds) + "\(raw) |"
            )
        }
        for query in Set(queries.map(\.query)).sorted() {
            let sizes = queries.filter { $0.query == query }.sorted { $0.zoneSize < $1.zoneSize }
            if let small = sizes.first, let large = sizes.last, large.zoneSize > small.zoneSize {
                lines.append(
                    "\(query): p50 at \(format(Double(large.zoneSize))) / p50 at \(format(Double(small.zoneSize))) = "
                        + String(format: "%.1f×", large.p50Milliseconds / small.p50Milliseconds)
                )
            }
        }
        Swift.print(lines.joined(separator: "\n"))
    }

    static func print(sharing: SharingBenchmark.Result) {
        let lines = [
            "",
            "sharing, one client, one records/modify per step:",
            "| step | records moved | ms |",
            "|---|---:|---:|",
            "| share a root with \(format(Double(sharing.hierarchySize - 1))) descendants | \(format(Double(sharing.hierarchySize))) | "
                + String(format: "%.1f |", sharing.shareMilliseconds),
            "| move a 1,000-record subtree out of the share | 1,000 | " + String(format: "%.1f |", sharing.moveOutMilliseconds),
            "| move it back in | 1,000 | " + String(format: "%.1f |", sharing.moveInMilliseconds),
            "",
            "save of one new child record, \(sharing.saves) sequential saves each, p50:",
            String(
                format: "private database (owner): %.3f ms; shared database (participant, READ_WRITE): %.3f ms; ratio %.2f×",
                sharing.privateSaveP50,
                sharing.sharedSaveP50,
                sharing.sharedSaveP50 / sharing.privateSaveP50
            ),
        ]
        Swift.print(lines.joined(separator: "\n"))
    }

    static func print(sdk: SDKBenchmark.Result) {
        Swift.print(
            String(
                format:
                    "\nSDK overhead, a %d-record save, %d rounds each, one at a time, p50: SDK %.2f ms; raw request %.2f ms; SDK/raw %.3f×; the SDK's own work (outside its transport) %.2f ms, its transport %.2f ms",
                SDKBenchmark.recordsPerBatch,
                sdk.rounds,
                sdk.sdkP50,
                sdk.rawP50,
                sdk.sdkP50 / sdk.rawP50,
                sdk.sdkWorkP50,
                sdk.sdkTransportP50
            )
        )
    }

    static func print(notifications n: NotificationBenchmark.Result) {
        Swift.print(
            String(
                format: """

                    Notifications, a chat of %d members each on a WebSocket, %d messages one at a time:
                    | measure | p50 ms | p99 ms |
                    |---|---:|---:|
                    | send to last member's delivery | %.1f | %.1f |
                    | send to first member's delivery | %.1f | - |
                    | the writer's records/modify, no subscribers | %.2f | %.2f |
                    | the writer's records/modify, %d subscribers connected | %.2f | %.2f |
                    writer p50 with/without subscribers: %.2f×
                    %d idle WebSockets: server resident memory %.0f MiB (%.0f MiB before opening them; %.1f KiB each)
                    """,
                n.members,
                n.sends,
                n.lastDeliveryP50,
                n.lastDeliveryP99,
                n.firstDeliveryP50,
                n.writeWithoutP50,
                n.writeWithoutP99,
                n.members,
                n.writeWithP50,
                n.writeWithP99,
                n.writeWithP50 / n.writeWithoutP50,
                n.idleConnections,
                Double(n.idleMemoryBytes) / 1_048_576,
                Double(n.baselineMemoryBytes) / 1_048_576,
                Double(n.idleMemoryBytes - n.baselineMemoryBytes) / 1024 / Double(max(n.idleConnections, 1))
            )
        )
    }

    private static func format(_ value: Double) -> String {
        let rounded = Int(value.rounded())
        var text = String(rounded)
        var index = text.count - 3
        while index > 0 {
            text.insert(",", at: text.index(text.startIndex, offsetBy: index))
            index -= 3
        }
        return text
    }
}
