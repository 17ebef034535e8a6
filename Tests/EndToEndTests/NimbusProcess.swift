//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Foundation
import NimbusTestSupport
import Synchronization

/// A test's data directory and the database it runs on, as `nimbus` options.
struct DataLocation {
    let directory: String
    let database: TestDatabase

    init(directory: URL) {
        self.directory = directory.path
        database = TestDatabase(directory: directory)
    }

    /// `--data DIR`, and `--database URL` when the suite runs on PostgreSQL.
    var options: [String] {
        ["--data", directory] + (database.postgresURL.map { ["--database", $0] } ?? [])
    }
}

/// The `nimbus` executable, run as a user runs it.
enum NimbusBinary {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The built executable: `NIMBUS_BINARY`, or the debug build next to the tests.
    static var path: String {
        if let path = ProcessInfo.processInfo.environment["NIMBUS_BINARY"] { return path }
        return packageRoot.appendingPathComponent(".build/debug/nimbus").path
    }

    /// Runs a subcommand to completion and returns its exit status and output.
    static func run(_ arguments: [String]) async throws -> (status: Int32, stdout: String, stderr: String) {
        try await runProcess(path, arguments)
    }
}

/// Runs a program to completion, returning its status and output.
func runProcess(_ executable: String, _ arguments: [String], environment: [String: String]? = nil) async throws -> (
    status: Int32, stdout: String, stderr: String
) {
    try await ProcessLaunch.runToCompletion(executable, arguments, environment: environment)
}

/// A `nimbus serve` process on a free port; stopped with SIGTERM by ``stop()``.
final class ServerProcess: Sendable {
    private let child: ProcessLaunch
    let url: String

    /// Starts the server on `directory` and waits until it logs that it is ready.
    /// - Parameters:
    ///   - arguments: the command line; `serve --port 0` and the data options by default.
    ///   - descriptorLimit: a limit on open files for the server (soft and hard), as `ulimit -n` sets.
    init(_ data: DataLocation, environment extra: [String: String] = [:], arguments: [String]? = nil, descriptorLimit: Int? = nil)
        async throws
    {
        var environment = ProcessInfo.processInfo.environment
        environment["NIMBUS_LOG_LEVEL"] = "info"
        environment.merge(extra) { _, new in new }
        let commandLine = arguments ?? ["serve", "--port", "0"] + data.options
        let child =
            if let descriptorLimit {
                // exec keeps the shell's process ID, so signals reach the server.
                try ProcessLaunch.start(
                    "/bin/sh",
                    ["-c", "ulimit -n \(descriptorLimit) && exec \"$0\" \"$@\"", NimbusBinary.path] + commandLine,
                    environment: environment
                )
            } else {
                try ProcessLaunch.start(NimbusBinary.path, commandLine, environment: environment)
            }
        self.child = child
        var url: String?
        for _ in 0..<300 where url == nil {
            try await Task.sleep(for: .milliseconds(50))
            if let line = child.stderr.split(separator: "\n").first(where: { $0.contains("Nimbus ready") }),
                let range = line.range(of: #"https?://127\.0\.0\.1:[0-9]+"#, options: .regularExpression)
            {
                url = String(line[range])
            }
            if !child.isRunning { break }
        }
        guard let url else {
            child.signal(SIGKILL)
            throw EndToEndFailure("server did not start: \(child.stderr)")
        }
        self.url = url
    }

    var stdout: String { child.stdout }
    var stderr: String { child.stderr }

    /// The value of `export NAME=value` in what the server printed on first start.
    func exported(_ name: String) -> String? {
        for line in stdout.split(separator: "\n") where line.hasPrefix("export \(name)=") {
            return String(line.dropFirst("export \(name)=".count)).trimmingCharacters(in: CharacterSet(charactersIn: "'"))
        }
        return nil
    }

    /// The options a client subcommand needs to act as the user the first start made:
    /// `--url`, `--container`, `--api-token`, `--web-auth-token`.
    func clientOptions() throws -> [String] {
        guard let container = exported("NIMBUS_CONTAINER"), let apiToken = exported("NIMBUS_API_TOKEN"),
            let webAuthToken = exported("NIMBUS_WEB_AUTH_TOKEN")
        else { throw EndToEndFailure("the server's first start printed no container, API token or user: \(stdout)") }
        return ["--url", url, "--container", container, "--api-token", apiToken, "--web-auth-token", webAuthToken]
    }

    /// Kills the process with SIGKILL, as a crash or an out-of-memory kill would, and waits for it.
    func kill() async {
        child.signal(SIGKILL)
        _ = await child.waitForExit()
    }

    /// Sends SIGTERM and waits for the process to exit; returns its exit status.
    func stop() async throws -> Int32 {
        child.signal(SIGTERM)
        for _ in 0..<200 where child.isRunning {
            try await Task.sleep(for: .milliseconds(50))
        }
        if child.isRunning {
            child.signal(SIGKILL)
            _ = await child.waitForExit()
            throw EndToEndFailure("server did not stop within 10 s of SIGTERM")
        }
        return await child.waitForExit()
    }
}

struct EndToEndFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
