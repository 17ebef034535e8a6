//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import ArgumentParser
import Foundation

/// `nimbus-load`: measures a release build of `nimbus serve` under concurrent load.
///
/// It makes a data directory, adds users with the admin subcommands, starts the server, seeds
/// records, and drives each scenario with `wrk` (a C load generator, so the generator takes as
/// little of the machine's CPU as possible) using one keep-alive connection per client. In the
/// same run it measures `GET /health` (the HTTP ceiling) and raw SQLite inserts into the same
/// schema (the storage ceiling), and reports Nimbus's figures as ratios of those.
@main
struct NimbusLoad: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "nimbus-load", abstract: "Load-test a Nimbus server.")

    @Option(help: "The nimbus executable (a release build).") var nimbus: String
    @Option(help: "Concurrent clients (keep-alive connections).") var clients = 64
    @Option(help: "Distinct signed-in users the clients act as.") var users = 16
    @Option(help: "Seconds each scenario runs.") var duration = 10
    @Option(help: "wrk threads.") var threads = 2
    @Option(help: "Scenarios to run, comma separated (default: all).") var only: String?
    @Flag(help: "Keep the data directory (its path is printed) for inspection.") var keepData = false
    @Option(help: "The largest zone the sync benchmark fills (1000, 100000 or 1000000).") var syncZoneSize = 1_000_000
    @Option(help: "The largest zone the query benchmark fills (1000 or 1000000).") var queryZoneSize = 1_000_000
    @Option(help: "Members of the chat the notification benchmark fans out to.") var chatMembers = 1_000
    @Option(help: "Messages the notification benchmark sends.") var chatSends = 50
    @Option(help: "Idle WebSocket connections the notification benchmark holds.") var idleConnections = 10_000
    @Option(help: "A postgres:// URL: run the server on PostgreSQL; the storage ceiling is then raw PostgreSQL inserts (pgbench).")
    var database: String?
    @Flag(help: "On PostgreSQL, leave the seeded tables without planner statistics (see PlannerStatistics).")
    var skipAnalyze = false
    @Flag(
        help:
            "Give every user a subscription to the zone the saves go to, so each save leaves an outbox row and a notification (without it nobody could hear of a save, and the server skips both)."
    )
    var subscribed = false
    @Flag(help: "Count the server's instructions per request under valgrind's callgrind instead of timing load (see InstructionCounts).")
    var instructions = false
    @Option(help: "Requests counted per scenario with --instructions (a tenth as many 200-record saves).")
    var instructionRequests = 200
    @Flag(
        help:
            "With --instructions, count under load: --clients requests in flight for --duration seconds per scenario, so concurrent writes share commits, instead of one request at a time."
    )
    var underLoad = false

    func run() async throws {
        // Before any benchmark opens the SQLite file (sync, queries and sharing read it raw).
        try RawSQLiteInserts.configureLibrary()
        let callgrind = instructions ? try InstructionCounts.prepare(nimbus: nimbus) : nil
        // Declared first, so it runs after the session's server (and its dump at exit) stopped.
        defer { if let callgrind, !keepData { try? FileManager.default.removeItem(at: callgrind.directory) } }
        let session = try await LoadSession.start(nimbus: nimbus, users: users, database: database, callgrind: callgrind)
        defer { session.stop(removingData: !keepData) }
        if subscribed { try session.subscribeToSavedZone() }
        if let database, !skipAnalyze { try PlannerStatistics.refresh(database: database) }
        if keepData { FileHandle.standardError.write(Data("data directory: \(session.directory.path)\n".utf8)) }
        let selected = only.map { Set($0.split(separator: ",").map(String.init)) }
        if let callgrind {
            if keepData { FileHandle.standardError.write(Data("callgrind dumps: \(callgrind.directory.path)\n".utf8)) }
            let scenarios = Scenario.all(session: session).filter { selected?.contains($0.name) ?? true }
            let load = underLoad ? InstructionCounts.Load(clients: clients, threads: threads, seconds: duration) : nil
            let (idle, counts) = try InstructionCounts.measure(
                scenarios,
                session: session,
                launch: callgrind,
                requests: instructionRequests,
                load: load
            )
            InstructionCounts.print(counts, idle: idle, store: database == nil ? "SQLite" : "PostgreSQL", load: load)
            return
        }
        var results: [ScenarioResult] = []
        for scenario in Scenario.all(session: session) where selected?.contains(scenario.name) ?? true {
            FileHandle.standardError.write(Data("running \(scenario.name)...\n".utf8))
            let server = ProcessCPU.seconds(of: session.serverPID)
            let postgres = database == nil ? 0 : ProcessCPU.seconds(ofProcessesNamed: "postgres")
            var result = try Wrk.run(scenario, url: session.url, clients: clients, threads: threads, seconds: duration)
            result.serverCPUSeconds = ProcessCPU.seconds(of: session.serverPID) - server
            if database != nil { result.databaseCPUSeconds = ProcessCPU.seconds(ofProcessesNamed: "postgres") - postgres }
            results.append(result)
        }
        // The peer on SQLite, after Nimbus's scenarios (and before anything that fills large
        // zones), while the machine is as quiet as it was for them.
        if database == nil, selected?.contains("pocketbase") ?? true,
            let pocketBase = try PocketBaseCreates.measure(users: users, clients: clients, threads: threads, seconds: duration)
        {
            results.append(pocketBase)
        }
        var sync: SyncBenchmark.Result?
        // The sync and sharing benchmarks compare with raw reads of the SQLite file.
        if database == nil, selected?.contains("sync") ?? true {
            sync = try await SyncBenchmark.run(session: session, largest: syncZoneSize)
        }
        var queries: [QueryBenchmark.Timing] = []
        if selected?.contains("queries") ?? true {
            queries = try await QueryBenchmark.run(session: session, largest: queryZoneSize)
        }
        var sharing: SharingBenchmark.Result?
        if database == nil, selected?.contains("sharing") ?? true {
            sharing = try SharingBenchmark.run(session: session)
        }
        var notifications: NotificationBenchmark.Result?
        if selected?.contains("notifications") ?? true {
            notifications = try await NotificationBenchmark.run(
                session: session,
                members: chatMembers,
                sends: chatSends,
                idleConnections: idleConnections
            )
        }
        var sdk: SDKBenchmark.Result?
        if selected?.contains("sdk") ?? true {
            sdk = try await SDKBenchmark.run(session: session)
        }
        let raw =
            try database.map { try RawPostgresInserts.measure(database: $0, clients: clients, seconds: duration) }
            ?? RawSQLiteInserts.measure(schemaFrom: session.databasePath)
        Report.print(results: results, raw: raw, clients: clients, users: users, seconds: duration)
        if let sync { Report.print(sync: sync) }
        if !queries.isEmpty { Report.print(queries: queries) }
        if let sharing { Report.print(sharing: sharing) }
        if let sdk { Report.print(sdk: sdk) }
        if let notifications { Report.print(notifications: notifications) }
    }
}
