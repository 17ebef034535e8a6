//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Foundation

/// What one scenario measured.
struct ScenarioResult {
    var scenario: Scenario
    var requests: Int
    var seconds: Double
    var failures: Int
    var p50Microseconds: Int
    var p99Microseconds: Int

    /// CPU seconds the server, and the database (on PostgreSQL), used during the scenario.
    var serverCPUSeconds: Double = 0
    var databaseCPUSeconds: Double?

    var requestsPerSecond: Double { Double(requests) / seconds }
    var serverCPUMicrosecondsPerRequest: Double { serverCPUSeconds * 1_000_000 / Double(max(requests, 1)) }
    var databaseCPUMicrosecondsPerRequest: Double? { databaseCPUSeconds.map { $0 * 1_000_000 / Double(max(requests, 1)) } }
    var recordsPerSecond: Double { requestsPerSecond * Double(scenario.recordsPerRequest) }
}

/// Drives a scenario with wrk, one keep-alive connection per client.
enum Wrk {
    static func run(_ scenario: Scenario, url: String, clients: Int, threads: Int, seconds: Int) throws -> ScenarioResult {
        let script = FileManager.default.temporaryDirectory.appendingPathComponent("nimbus-load-\(UUID().uuidString).lua")
        try lua(for: scenario).write(to: script, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: script) }
        let output = try Shell.run(
            "/usr/bin/env",
            [
                "wrk", "-t", String(threads), "-c", String(clients), "-d", "\(seconds)s", "--timeout", "10s", "-s", script.path, url,
            ]
        )
        guard let line = output.split(separator: "\n").last(where: { $0.hasPrefix("{\"requests\"") }),
            let summary = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Int]
        else { throw LoadError("wrk printed no summary:\n\(output)") }
        return ScenarioResult(
            scenario: scenario,
            requests: summary["requests"] ?? 0,
            seconds: Double(summary["duration_us"] ?? 1) / 1e6,
            failures: (summary["errors_status"] ?? 0) + (summary["errors_other"] ?? 0),
            p50Microseconds: summary["p50_us"] ?? 0,
            p99Microseconds: summary["p99_us"] ?? 0
        )
    }

    private static func lua(for scenario: Scenario) -> String {
        func quoted(_ text: String) -> String {
            "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
        }
        let requests = scenario.requests.map { request in
            let headers = request.headers.map { "[\(quoted($0.key))]=\(quoted($0.value))" }.joined(separator: ",")
            return
                "wrk.format(\(quoted(request.method)), \(quoted(request.path)), {\(headers)}, \(request.body.isEmpty ? "nil" : quoted(request.body)))"
        }
        return """
            local requests = {}
            init = function(args)
            \(requests.map { "  table.insert(requests, \($0))" }.joined(separator: "\n"))
            end
            local i = math.random(1000)
            request = function()
              i = i + 1
              return requests[(i % #requests) + 1]
            end
            done = function(summary, latency, requests)
              local other = summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout
              io.write(string.format('{"requests":%d,"duration_us":%d,"errors_status":%d,"errors_other":%d,"p50_us":%d,"p99_us":%d}\\n',
                summary.requests, summary.duration, summary.errors.status, other, latency:percentile(50), latency:percentile(99)))
            end
            """
    }
}
