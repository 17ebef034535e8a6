//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Crypto
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A running `nimbus serve` on a fresh data directory, with users and seeded records.
final class LoadSession: @unchecked Sendable {
    static let container = "iCloud.bench.load"
    static let seedRecords = 1000
    static let groups = 50

    let directory: URL
    let url: String
    let apiToken: String
    let webAuthTokens: [String]
    let keyID: String
    let privateKey: P256.Signing.PrivateKey
    private let server: Process
    /// The PostgreSQL database the server runs on, or `nil` for SQLite in the data directory.
    let database: String?

    var databasePath: String { directory.appendingPathComponent("nimbus.sqlite").path }
    /// The `nimbus` executable the session runs.
    let nimbus: String
    /// `--data DIR` and, on PostgreSQL, `--database URL`: what every admin command needs.
    var dataOptions: [String] { ["--data", directory.path] + (database.map { ["--database", $0] } ?? []) }
    /// The server's process ID, for its memory.
    var serverPID: Int32 { server.processIdentifier }

    private init(
        directory: URL,
        nimbus: String,
        url: String,
        apiToken: String,
        webAuthTokens: [String],
        keyID: String,
        privateKey: P256.Signing.PrivateKey,
        server: Process,
        database: String?
    ) {
        self.directory = directory
        self.nimbus = nimbus
        self.url = url
        self.apiToken = apiToken
        self.webAuthTokens = webAuthTokens
        self.keyID = keyID
        self.privateKey = privateKey
        self.server = server
        self.database = database
    }

    /// - Parameter callgrind: runs the server under callgrind (``InstructionCounts``), which
    ///   takes it much longer to start.
    static func start(nimbus: String, users: Int, database: String?, callgrind: InstructionCounts.Launch? = nil) async throws -> LoadSession {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nimbus-load-\(UUID().uuidString)")
        let data = directory.path
        // Every command names the data directory, and the database when it is PostgreSQL.
        let dataOptions = ["--data", data] + (database.map { ["--database", $0] } ?? [])
        let container = try json(try Shell.run(nimbus, ["container", "create", container, "--json"] + dataOptions))
        var tokens: [String] = []
        for index in 0..<users {
            let user = try json(
                try Shell.run(nimbus, ["user", "add", "Load User \(index)", "--container", Self.container, "--json"] + dataOptions)
            )
            tokens.append(user["webAuthToken"] ?? "")
        }
        let privateKey = P256.Signing.PrivateKey()
        let keyPath = directory.appendingPathComponent("load.pub.pem").path
        try privateKey.publicKey.pemRepresentation.write(toFile: keyPath, atomically: true, encoding: .utf8)
        let key = try json(try Shell.run(nimbus, ["key", "add", "--container", Self.container, "--public-key", keyPath, "--json"] + dataOptions))

        let port = 18_000 + Int.random(in: 0..<2000)
        let server = Process()
        server.executableURL = URL(fileURLWithPath: callgrind?.valgrind ?? nimbus)
        server.arguments = (callgrind?.arguments ?? []) + ["serve", "--port", String(port)] + dataOptions
        var environment = ProcessInfo.processInfo.environment.merging(callgrind?.environment ?? [:]) { $1 }
        // Warnings only by default; NIMBUS_LOAD_LOG_LEVEL=info measures with the access log's
        // line per request, written to a file as a service manager's journal would take it.
        environment["NIMBUS_LOG_LEVEL"] = environment["NIMBUS_LOAD_LOG_LEVEL"] ?? "warning"
        server.environment = environment
        let logPath = directory.appendingPathComponent("server.log").path
        FileManager.default.createFile(atPath: logPath, contents: nil)
        server.standardError = FileHandle(forWritingAtPath: logPath)
        try server.run()
        let url = "http://127.0.0.1:\(port)"
        for _ in 0..<(callgrind == nil ? 200 : 4000) {
            if (try? Shell.run("/usr/bin/env", ["curl", "-sf", url + "/health"])) != nil { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        let session = LoadSession(
            directory: directory,
            nimbus: nimbus,
            url: url,
            apiToken: container["apiToken"] ?? "",
            webAuthTokens: tokens,
            keyID: key["keyID"] ?? "",
            privateKey: privateKey,
            server: server,
            database: database
        )
        try session.seed()
        return session
    }

    func stop(removingData: Bool = true) {
        server.terminate()
        server.waitUntilExit()
        if removingData { try? FileManager.default.removeItem(at: directory) }
    }

    /// The private-database path of an operation, authenticated as user `index`.
    /// Sends a request to user 0's private database through URLSession (several may be in
    /// flight, as for bulk seeding) and returns the body of a 200 answer.
    func post(_ operation: String, _ body: String) async throws -> String {
        var request = URLRequest(url: URL(string: url + privatePath(operation, user: 0))!)
        request.httpMethod = "POST"
        request.httpBody = Data(body.utf8)
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        let (data, response) = try await URLSession.shared.data(for: request)
        guard (response as? HTTPURLResponse)?.statusCode == 200 else {
            throw LoadError("\(operation) failed: \(String(decoding: data.prefix(300), as: UTF8.self))")
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// Creates `zone` in user 0's private database and `records` records in it through
    /// `records/modify`, 200 per request and four requests in flight, like a bulk import;
    /// `record(index)` is each record's JSON.
    func fill(zone: String, records: Int, record: @escaping @Sendable (Int) -> String) async throws {
        _ = try await post("zones/modify", #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"\#(zone)"}}}]}"#)
        let batches = Array(stride(from: 0, to: records, by: 200))
        try await withThrowingTaskGroup(of: Void.self) { group in
            var next = 0
            func add() {
                guard next < batches.count else { return }
                let start = batches[next]
                next += 1
                group.addTask {
                    let operations = (start..<min(start + 200, records)).map { #"{"operationType":"create","record":\#(record($0))}"# }
                    let response = try await self.post(
                        "records/modify",
                        #"{"zoneID":{"zoneName":"\#(zone)"},"operations":[\#(operations.joined(separator: ","))]}"#
                    )
                    guard response.contains("recordChangeTag") else { throw LoadError("seeding failed: \(response.prefix(300))") }
                }
            }
            for _ in 0..<4 { add() }
            while try await group.next() != nil { add() }
        }
    }

    func privatePath(_ operation: String, user index: Int) -> String {
        path(operation, scope: "private", user: index)
    }

    /// The path of an operation in a database, authenticated as user `index`.
    func path(_ operation: String, scope: String, user index: Int) -> String {
        let token = webAuthTokens[index].addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        return "/database/1/\(Self.container)/development/\(scope)/\(operation)?ckAPIToken=\(apiToken)&ckWebAuthToken=\(token)"
    }

    /// Records `seed-0 ... seed-999` in every user's zone `Seed`, in groups `g0 ... g49`. Saves go
    /// to the default zone, so the lookup and query figures do not depend on how much the save
    /// scenarios wrote before them; it holds 200 records before they start (`prior-0 ...
    /// prior-199`), so that on PostgreSQL the planner's statistics (``PlannerStatistics``) know
    /// it, as a deployment's would know a zone in use.
    private func seed() throws {
        for user in webAuthTokens.indices {
            let prior = (0..<200).map { index in
                #"{"operationType":"create","record":{"recordName":"prior-\#(index)","recordType":"Note","fields":{"title":{"value":"prior \#(index)"}}}}"#
            }
            let priorResponse = try Shell.run(
                "/usr/bin/env",
                ["curl", "-sf", "-d", #"{"operations":[\#(prior.joined(separator: ","))]}"#, url + privatePath("records/modify", user: user)]
            )
            guard priorResponse.contains("recordChangeTag") else { throw LoadError("seeding failed: \(priorResponse.prefix(300))") }
            let zone = #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"Seed"}}}]}"#
            _ = try Shell.run("/usr/bin/env", ["curl", "-sf", "-d", zone, url + privatePath("zones/modify", user: user)])
            for batch in stride(from: 0, to: Self.seedRecords, by: 200) {
                let records = (batch..<batch + 200).map { index in
                    #"{"operationType":"create","record":{"recordName":"seed-\#(index)","recordType":"Note","fields":{"title":{"value":"seed \#(index)"},"group":{"value":"g\#(index % Self.groups)"},"count":{"value":\#(index)}}}}"#
                }
                let body = #"{"zoneID":{"zoneName":"Seed"},"operations":[\#(records.joined(separator: ","))]}"#
                let response = try Shell.run("/usr/bin/env", ["curl", "-sf", "-d", body, url + privatePath("records/modify", user: user)])
                guard response.contains("recordChangeTag") else { throw LoadError("seeding failed: \(response.prefix(300))") }
            }
        }
    }

    /// A zone subscription of every user to the default zone, where the save scenarios write:
    /// each save then has someone to tell, so it leaves an outbox row and the dispatcher writes
    /// the user a notification.
    func subscribeToSavedZone() throws {
        let subscription = #"{"subscriptionID":"saves","subscriptionType":"zone","zoneID":{"zoneName":"_defaultZone"}}"#
        let body = #"{"operations":[{"operationType":"create","subscription":\#(subscription)}]}"#
        for user in webAuthTokens.indices {
            let response = try Shell.run("/usr/bin/env", ["curl", "-sf", "-d", body, url + privatePath("subscriptions/modify", user: user)])
            guard response.contains("\"saves\"") else { throw LoadError("subscribing failed: \(response.prefix(300))") }
        }
    }

    private static func json(_ text: String) throws -> [String: String] {
        guard let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: String] else {
            throw LoadError("expected a JSON object, got: \(text)")
        }
        return object
    }
}

/// Runs commands to completion.
///
/// With `posix_spawn` rather than `Process`, to give the command a clean signal mask: a command
/// started from a thread of Swift's concurrency pool otherwise inherits that thread's mask, in
/// which SIGALRM and SIGTERM are blocked, and pgbench, which ends its `-T` run on SIGALRM,
/// never stops.
enum Shell {
    @discardableResult
    static func run(_ executable: String, _ arguments: [String]) throws -> String {
        let output = Pipe()
        // Standard error goes to a file, not a second pipe: a pipe read only after standard output
        // reaches EOF fills up when the command writes much to it, and the command then blocks.
        let errorPath = FileManager.default.temporaryDirectory.appendingPathComponent("nimbus-load-\(UUID().uuidString).err").path
        defer { try? FileManager.default.removeItem(atPath: errorPath) }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        let writeEnd = output.fileHandleForWriting.fileDescriptor
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, writeEnd, 1)
        posix_spawn_file_actions_addopen(&actions, 2, errorPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addclose(&actions, writeEnd)
        posix_spawn_file_actions_addclose(&actions, output.fileHandleForReading.fileDescriptor)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        var everySignal = sigset_t()
        sigfillset(&everySignal)
        posix_spawnattr_setsigdefault(&attributes, &everySignal)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable, &actions, &attributes, argv, environ)
        try output.fileHandleForWriting.close()
        guard spawned == 0 else { throw LoadError("cannot run \(executable): error \(spawned)") }
        let printed = output.fileHandleForReading.readDataToEndOfFile()
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        guard status == 0 else {
            let errors = FileManager.default.contents(atPath: errorPath) ?? Data()
            throw LoadError("\(executable) \(arguments.prefix(3).joined(separator: " ")) failed: \(String(decoding: errors, as: UTF8.self))")
        }
        return String(decoding: printed, as: UTF8.self)
    }
}

struct LoadError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
