//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Foundation

/// Instructions the server executes per request, counted by valgrind's callgrind: a figure that
/// does not move with the machine's noise, so a change's cost shows in one run.
///
/// The server runs under callgrind for the whole session. For each scenario, a warm-up, then
/// `callgrind_control --zero`, a fixed number of requests sent one after another on one
/// keep-alive connection, and `callgrind_control --dump`: the dump's total over the number of
/// requests is the figure. Only the server is counted; on PostgreSQL, the database's work is
/// not in it. The dumps stay in the data directory (`--keep-data`) for `callgrind_annotate`.
///
/// Under load (``Load``), wrk keeps many requests in flight instead, for a fixed time, and the
/// figure is over the requests it saw answered: concurrent writes then share commits as they do
/// in production, where one at a time each commits alone. callgrind runs one thread at a time,
/// so the groups it sees are smaller than on two cores.
enum InstructionCounts {
    /// Requests in flight, and for how long, when counting under load.
    struct Load {
        var clients: Int
        var threads: Int
        var seconds: Int
    }

    /// How the session starts the server under callgrind.
    struct Launch {
        var valgrind: String
        /// valgrind's options and the executable, before `serve` and its options.
        var arguments: [String]
        var environment: [String: String]
        /// Where callgrind writes its dumps.
        var directory: URL
    }

    struct Result {
        var scenario: Scenario
        var requests: Int
        /// The server's instructions while the requests ran, less its idle rate over that time.
        var instructions: Int
        /// Of those, the SQLite WAL checkpoint thread's (see ``checkpointThreadInstructions(in:)``).
        var checkpointThread: Int

        var perRequest: Double { Double(instructions) / Double(requests) }
        /// Per request, without the checkpoint thread.
        var perRequestOwn: Double { Double(instructions - checkpointThread) / Double(requests) }
    }

    /// What the server does with no request, per second of wall time: timers (the SQLite WAL
    /// checkpointer wakes five times a second), which under valgrind's slowdown would
    /// otherwise be counted against each request.
    struct Idle {
        var instructionsPerSecond: Double
    }

    /// Makes what running `nimbus` under callgrind needs, in a new directory.
    ///
    /// Two workarounds for Debian bookworm's valgrind 3.19, both for measuring only:
    /// - its DWARF reader gives up on the DWARF 5 that Swift 6.3 writes, so the server runs from
    ///   a copy without debug information (function names stay, in the symbol table);
    /// - it writes the mask `sigsuspend` is given back into the caller's memory, and libdispatch's
    ///   main-queue wait passes a constant one: valgrind then faults on a read-only page. A
    ///   preloaded `sigsuspend` passes a copy (`Benchmarks/Callgrind/sigsuspend-copy.c`).
    static func prepare(nimbus: String) throws -> Launch {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nimbus-callgrind-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let server = directory.appendingPathComponent("nimbus").path
        try Shell.run("/usr/bin/env", ["objcopy", "--strip-debug", nimbus, server])
        let benchmarks = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let shimSource = benchmarks.appendingPathComponent("Callgrind/sigsuspend-copy.c").path
        let shim = directory.appendingPathComponent("sigsuspend-copy.so").path
        try Shell.run("/usr/bin/env", ["cc", "-O2", "-shared", "-fPIC", shimSource, "-o", shim])
        let valgrind = try Shell.run("/usr/bin/env", ["sh", "-c", "command -v valgrind"]).trimmingCharacters(in: .whitespacesAndNewlines)
        return Launch(
            valgrind: valgrind,
            arguments: ["--tool=callgrind", "--callgrind-out-file=\(directory.path)/callgrind.%p", server],
            // The runtime's crash reporter would start its own process under valgrind.
            environment: ["LD_PRELOAD": shim, "SWIFT_BACKTRACE": "enable=no"],
            directory: directory
        )
    }

    /// Counts `requests` of each scenario (a tenth as many for batches of more than a hundred
    /// records), after a warm-up of a tenth as many.
    static func measure(_ scenarios: [Scenario], session: LoadSession, launch: Launch, requests: Int, load: Load?) throws -> (Idle, [Result]) {
        guard let port = URL(string: session.url)?.port else { throw LoadError("no port in \(session.url)") }
        let client = try KeepAliveClient(port: port)
        let idle = try measureIdle(session: session, launch: launch)
        var results: [Result] = []
        for scenario in scenarios {
            FileHandle.standardError.write(Data("counting \(scenario.name)...\n".utf8))
            var count = scenario.recordsPerRequest > 100 ? max(1, requests / 10) : requests
            try send(scenario, count: max(1, count / 10), from: 0, on: client)
            try callgrindControl(["--zero"], session: session)
            let start = ContinuousClock.now
            if let load {
                let run = try Wrk.run(scenario, url: session.url, clients: load.clients, threads: load.threads, seconds: load.seconds)
                guard run.failures == 0, run.requests > 0 else { throw LoadError("\(scenario.name) under load: \(run.failures) failed") }
                count = run.requests
            } else {
                try send(scenario, count: count, from: max(1, count / 10), on: client)
            }
            let seconds = (ContinuousClock.now - start) / .seconds(1)
            try callgrindControl(["--dump=\(scenario.name)"], session: session)
            let dump = try latestDump(in: launch.directory)
            let total = try total(of: dump)
            let background = Int(idle.instructionsPerSecond * seconds)
            let instructions = max(0, total - background)
            let checkpointThread = min(instructions, try checkpointThreadInstructions(in: dump))
            results.append(Result(scenario: scenario, requests: count, instructions: instructions, checkpointThread: checkpointThread))
        }
        return (idle, results)
    }

    /// Counts three seconds with no request.
    private static func measureIdle(session: LoadSession, launch: Launch) throws -> Idle {
        FileHandle.standardError.write(Data("counting the idle server...\n".utf8))
        try callgrindControl(["--zero"], session: session)
        let start = ContinuousClock.now
        Thread.sleep(forTimeInterval: 3)
        let seconds = (ContinuousClock.now - start) / .seconds(1)
        try callgrindControl(["--dump=idle"], session: session)
        return Idle(instructionsPerSecond: Double(try total(of: latestDump(in: launch.directory))) / seconds)
    }

    private static func send(_ scenario: Scenario, count: Int, from first: Int, on client: KeepAliveClient) throws {
        for index in first..<(first + count) {
            let request = scenario.requests[index % scenario.requests.count]
            let answer = try client.request(method: request.method, request.path, headers: request.headers, body: request.body)
            guard answer.status == 200 else {
                throw LoadError("\(scenario.name) answered \(answer.status): \(String(decoding: answer.body.prefix(300), as: UTF8.self))")
            }
        }
    }

    private static func callgrindControl(_ arguments: [String], session: LoadSession) throws {
        try Shell.run("/usr/bin/env", ["callgrind_control"] + arguments + [String(session.serverPID)])
    }

    /// The newest dump (`callgrind.PID.N`, N counting up).
    private static func latestDump(in directory: URL) throws -> URL {
        // `callgrind.PID` alone is the dump at exit.
        let dumps = try FileManager.default.contentsOfDirectory(atPath: directory.path).compactMap { name -> (number: Int, name: String)? in
            let parts = name.split(separator: ".")
            guard parts.count == 3, parts[0] == "callgrind", let number = Int(parts[2]) else { return nil }
            return (number, name)
        }
        guard let newest = dumps.max(by: { $0.number < $1.number }) else { throw LoadError("no callgrind dump in \(directory.path)") }
        return directory.appendingPathComponent(newest.name)
    }

    /// A dump's instruction total.
    private static func total(of dump: URL) throws -> Int {
        guard let text = try? String(contentsOf: dump, encoding: .utf8),
            let line = text.split(separator: "\n").first(where: { $0.hasPrefix("summary:") || $0.hasPrefix("totals:") }),
            let total = Int(line.split(separator: " ").last ?? "")
        else { throw LoadError("no instruction total in \(dump.path)") }
        return total
    }

    /// The instructions of the SQLite WAL checkpoint thread in a dump: the inclusive cost of the
    /// closure it runs (`WALCheckpointer.start()`'s), as `callgrind_annotate` adds it up; 0 on
    /// PostgreSQL.
    ///
    /// Reported apart because that thread wakes every 200 ms of wall time, and callgrind slows
    /// the server about fiftyfold: under it, a pass comes every dozen or so requests, where under
    /// real load it comes every several hundred, and copies each hot page once for all of them.
    /// Its count per request follows the run's wall time, not the request, and moved by half
    /// between runs of one build.
    private static func checkpointThreadInstructions(in dump: URL) throws -> Int {
        let listing = try Shell.run("/usr/bin/env", ["callgrind_annotate", "--inclusive=yes", "--threshold=100", dump.path])
        // Mangled names: the thread's closure and what it calls are the lines that name the
        // type; the closure's own line, the outermost, has the largest count.
        return listing.split(separator: "\n").filter { $0.contains("15WALCheckpointer") }.compactMap { line in
            Int(line.split(separator: " ", omittingEmptySubsequences: true).first?.replacingOccurrences(of: ",", with: "") ?? "")
        }.max() ?? 0
    }

    static func print(_ results: [Result], idle: Idle, store: String, load: Load?) {
        let health = results.first { $0.scenario.name == "health" }
        let current = results.first { $0.scenario.name == "current" }
        let sending = load.map { "\($0.clients) requests in flight for \($0.seconds) s each" } ?? "requests sent one at a time"
        var lines = [
            "instructions per request, nimbus serve under callgrind, \(store), \(sending);",
            String(format: "the idle server's %.0f instructions per second are taken out", idle.instructionsPerSecond),
            "",
            "the WAL checkpoint thread's share is shown apart, and left out of the last two columns (see",
            "checkpointThreadInstructions)",
            "",
            "| scenario | requests | instructions/request | of which the checkpoint thread | without it | vs /health | vs users/current |",
            "|---|---:|---:|---:|---:|---:|---:|",
        ]
        for result in results {
            let versus = { (reference: Result?) in
                reference.map { String(format: "%.2f×", result.perRequestOwn / $0.perRequestOwn) } ?? "-"
            }
            lines.append(
                "| \(result.scenario.summary) | \(result.requests) | \(String(format: "%.0f", result.perRequest)) | "
                    + "\(String(format: "%.0f", Double(result.checkpointThread) / Double(result.requests))) | "
                    + "\(String(format: "%.0f", result.perRequestOwn)) | \(versus(health)) | \(versus(current)) |"
            )
        }
        Swift.print(lines.joined(separator: "\n"))
    }
}
