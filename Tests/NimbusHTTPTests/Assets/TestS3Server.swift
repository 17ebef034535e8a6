//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Foundation
import NimbusServer
import NimbusTestSupport

/// A real S3-compatible server (moto's, from the Python package index) on 127.0.0.1;
/// `scripts/test` installs it. One server runs for the whole test process (starting one costs
/// seconds of CPU, which a loaded suite feels); each test gets a bucket of its own.
final class TestS3Server: Sendable {
    let url: String
    let bucket: String

    private init(url: String, bucket: String) {
        self.url = url
        self.bucket = bucket
    }

    /// The configuration of a store on the test's bucket.
    var configuration: S3Configuration {
        S3Configuration(endpoint: url, bucket: bucket, region: "us-east-1", accessKeyID: "test-key", secretAccessKey: "test-secret")
    }

    /// Runs `body` with a new, empty bucket on the process's server.
    static func with<T: Sendable>(_ body: (TestS3Server) async throws -> T) async throws -> T {
        let url = try await SharedServer.instance.url()
        let server = TestS3Server(url: url, bucket: "nimbus-" + UUID().uuidString.lowercased())
        let incoming = FileManager.default.temporaryDirectory.appendingPathComponent("nimbus-s3-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: incoming) }
        try await S3AssetBlobStore(configuration: server.configuration, incomingDirectory: incoming).createBucket()
        return try await body(server)
    }

    /// The process's server, started by the first test that needs it and stopped when the
    /// process exits.
    private actor SharedServer {
        static let instance = SharedServer()
        private var started: String?

        func url() async throws -> String {
            if let started { return started }
            // A shell stays beside the server and stops it once the test process is gone, however
            // that process ends.
            let process = try ProcessLaunch.start(
                "/bin/sh",
                [
                    "-c",
                    "python3 -m moto.server -H 127.0.0.1 -p 0 & server=$!; trap 'kill $server' EXIT; "
                        + "while kill -0 $PPID 2>/dev/null && kill -0 $server 2>/dev/null; do sleep 1; done",
                ]
            )
            let url = try await Self.waitUntilReady(process)
            started = url
            return url
        }

        /// Waits for the line that says where it listens; fails at once if the server ends first
        /// (moto missing, say), and after 60 seconds if it never gets there.
        private static func waitUntilReady(_ process: ProcessLaunch) async throws -> String {
            let deadline = ContinuousClock.now + .seconds(60)
            while ContinuousClock.now < deadline {
                let output = process.stderr + process.stdout
                if let range = output.range(of: #"Running on http://127\.0\.0\.1:[0-9]+"#, options: .regularExpression) {
                    return String(output[range].dropFirst("Running on ".count))
                }
                guard process.isRunning else {
                    throw FixtureFailure(
                        "the S3 test server ended before it was ready (is moto installed? pip install 'moto[server]'): \(process.stderr)"
                    )
                }
                try await Task.sleep(for: .milliseconds(50))
            }
            throw FixtureFailure("the S3 test server was not ready within 60 seconds: \(process.stderr)")
        }
    }
}
