//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Foundation
import Testing

/// `nimbus serve --tls-cert --tls-key`: HTTPS without a proxy, and a renewed certificate taken
/// without a restart.
@Suite("TLS in nimbus serve", .timeLimit(.minutes(2)))
struct TLSTests {
    /// A self-signed certificate for 127.0.0.1 and its key, as PEM files named `name`.pem and `.key`.
    private func certificate(_ name: String, in directory: URL) async throws -> (certificate: String, key: String) {
        let certificate = directory.appendingPathComponent("\(name).pem").path
        let key = directory.appendingPathComponent("\(name).key").path
        let made = try await runProcess(
            "/usr/bin/env",
            [
                "openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", key, "-out",
                certificate, "-days", "1", "-subj", "/CN=\(name)", "-addext", "subjectAltName=IP:127.0.0.1",
            ]
        )
        #expect(made.status == 0, "\(made.stderr)")
        return (certificate, key)
    }

    private func health(_ url: String, trusting certificate: String) async throws -> Bool {
        let answer = try await runProcess("/usr/bin/env", ["curl", "-sf", "--cacert", certificate, "\(url)/health"])
        return answer.status == 0 && answer.stdout.contains(#""status":"ok""#)
    }

    @Test("HTTPS with the configured certificate; a renewal replaces it without a restart; bad files stop the start")
    func https() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nimbus-e2e-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let data = DataLocation(directory: directory.appendingPathComponent("data"))
        let first = try await certificate("first", in: directory)
        let second = try await certificate("second", in: directory)
        let served = (certificate: directory.appendingPathComponent("served.pem").path, key: directory.appendingPathComponent("served.key").path)
        try FileManager.default.copyItem(atPath: first.certificate, toPath: served.certificate)
        try FileManager.default.copyItem(atPath: first.key, toPath: served.key)

        let server = try await ServerProcess(
            data,
            arguments: ["serve", "--port", "0", "--tls-cert", served.certificate, "--tls-key", served.key] + data.options
        )
        #expect(server.url.hasPrefix("https://127.0.0.1:"), "\(server.url)")
        #expect(server.stdout.contains("export NIMBUS_URL=https://"), "links name https: \(server.stdout)")
        #expect(try await health(server.url, trusting: first.certificate))
        let plain = try await runProcess(
            "/usr/bin/env",
            ["curl", "-sf", "--max-time", "5", server.url.replacingOccurrences(of: "https", with: "http") + "/health"]
        )
        #expect(plain.status != 0, "plain HTTP was answered on the TLS port")

        // A renewal: new files renamed over the old, as certbot's deploy hooks do.
        for (source, target) in [(second.certificate, served.certificate), (second.key, served.key)] {
            let staged = target + ".new"
            try FileManager.default.copyItem(atPath: source, toPath: staged)
            #expect(rename(staged, target) == 0)
        }
        var renewed = false
        for _ in 0..<100 where !renewed {
            renewed = try await health(server.url, trusting: second.certificate)
            if !renewed { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(renewed, "the renewed certificate was not taken within 10 s")
        #expect(try await !health(server.url, trusting: first.certificate), "the old certificate is still served")
        #expect(server.stderr.contains("TLS certificate reloaded"))
        #expect(try await server.stop() == 0)

        let mismatched = try await runProcess(
            "/usr/bin/env",
            ["timeout", "20", NimbusBinary.path, "serve", "--port", "0", "--tls-cert", first.certificate, "--tls-key", second.key] + data.options
        )
        #expect(mismatched.status != 0)
        #expect(mismatched.stderr.contains("does not go with the certificate"), "\(mismatched.stderr)")
        let alone = try await runProcess(
            "/usr/bin/env",
            ["timeout", "20", NimbusBinary.path, "serve", "--port", "0", "--tls-cert", first.certificate] + data.options
        )
        #expect(alone.status != 0 && alone.stderr.contains("--tls-cert and --tls-key go together"), "\(alone.stderr)")
    }
}
