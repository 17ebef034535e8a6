//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Foundation
import NimbusServer
import NimbusTestSupport

/// A real S3-compatible server (moto's, from the Python package index) on 127.0.0.1, run as a
/// child process; `scripts/test` installs it. Each server starts empty, with one bucket.
final class TestS3Server: Sendable {
    let url: String
    private let process: ProcessLaunch

    private init(url: String, process: ProcessLaunch) {
        self.url = url
        self.process = process
    }

    /// The configuration of a store on the server's bucket.
    var configuration: S3Configuration {
        S3Configuration(endpoint: url, bucket: "nimbus-test", region: "us-east-1", accessKeyID: "test-key", secretAccessKey: "test-secret")
    }

    /// Runs `body` with a server whose bucket exists; stops the server afterwards.
    static func with<T: Sendable>(_ body: (TestS3Server) async throws -> T) async throws -> T {
        let process = try ProcessLaunch.start("/usr/bin/env", ["python3", "-m", "moto.server", "-H", "127.0.0.1", "-p", "0"])
        let server: TestS3Server
        do {
            server = try await waitUntilReady(process)
            let incoming = FileManager.default.temporaryDirectory.appendingPathComponent("nimbus-s3-\(UUID().uuidString)").path
            defer { try? FileManager.default.removeItem(atPath: incoming) }
            try await S3AssetBlobStore(configuration: server.configuration, incomingDirectory: incoming).createBucket()
        } catch {
            await stop(process)
            throw error
        }
        let result: T
        do {
            result = try await body(server)
        } catch {
            await stop(process)
            throw error
        }
        await stop(process)
        return result
    }

    /// Waits for the line that says where it listens; fails at once if the server ends first
    /// (moto missing, say), and after 30 seconds if it never gets there.
    private static func waitUntilReady(_ process: ProcessLaunch) async throws -> TestS3Server {
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            let output = process.stderr + process.stdout
            if let range = output.range(of: #"Running on http://127\.0\.0\.1:[0-9]+"#, options: .regularExpression) {
                return TestS3Server(url: String(output[range].dropFirst("Running on ".count)), process: process)
            }
            guard process.isRunning else {
                throw FixtureFailure(
                    "the S3 test server ended before it was ready (is moto installed? pip install 'moto[server]'): \(process.stderr)"
                )
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw FixtureFailure("the S3 test server was not ready within 30 seconds: \(process.stderr)")
    }

    private static func stop(_ process: ProcessLaunch) async {
        process.signal(SIGTERM)
        _ = await process.waitForExit(timeout: .seconds(10))
    }
}
