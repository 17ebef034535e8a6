//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Foundation
import NimbusTestSupport

/// A real SMTP server (aiosmtpd, from the Python package index) on 127.0.0.1, run as a child
/// process by `Fixtures/smtp-test-server.py`; `scripts/test` installs aiosmtpd.
///
/// The script prints one JSON line per event: `ready` with its port once it listens, then each
/// connection, EHLO/HELO, AUTH attempt and message. A message's line is written before the
/// server answers 250 to it, so when ``SMTPMailer/send(_:)`` has returned, ``messages`` holds it.
final class TestSMTPServer: Sendable {
    /// A message as the server received it.
    struct Message: Sendable {
        var mailFrom: String
        var rcptTos: [String]
        /// The message as it arrived, dot-stuffing undone by the server.
        var raw: String
        /// Each header, decoded by Python's email package (encoded-words and all).
        var headers: [String: String]
        /// The body, its transfer encoding undone, with LF line ends.
        var body: String
        var overTLS: Bool
        var authenticated: Bool
    }

    /// The port the server listens on.
    let port: Int
    private let process: ProcessLaunch

    private init(port: Int, process: ProcessLaunch) {
        self.port = port
        self.process = process
    }

    /// Every event the server printed, in order, `ready` first.
    var events: [[String: any Sendable]] {
        process.stdout.split(separator: "\n").compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: any Sendable]
        }
    }

    /// The names of the events after `ready`: `connect`, `ehlo`, `auth`, `message`, ...
    var eventNames: [String] { events.dropFirst().compactMap { $0["event"] as? String } }

    /// Every message taken.
    var messages: [Message] {
        events.filter { $0["event"] as? String == "message" }.map { event in
            Message(
                mailFrom: event["mail_from"] as? String ?? "",
                rcptTos: event["rcpt_tos"] as? [String] ?? [],
                raw: event["raw"] as? String ?? "",
                headers: event["headers"] as? [String: String] ?? [:],
                body: event["body"] as? String ?? "",
                overTLS: event["tls"] as? Bool ?? false,
                authenticated: event["authenticated"] as? Bool ?? false
            )
        }
    }

    /// Runs `body` with a server started with `options` (see the script); stops the server
    /// afterwards, whether `body` threw or not.
    static func with<T: Sendable>(_ options: [String] = [], _ body: (TestSMTPServer) async throws -> T) async throws -> T {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/smtp-test-server.py").path
        let process = try ProcessLaunch.start("/usr/bin/env", ["python3", script] + options)
        let server: TestSMTPServer
        do {
            server = try await waitUntilReady(process)
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

    /// Waits for the `ready` line, which the script prints once it listens; fails at once if
    /// the script ends first (aiosmtpd missing, say), and after 30 seconds if it never gets there.
    private static func waitUntilReady(_ process: ProcessLaunch) async throws -> TestSMTPServer {
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            if let line = process.stdout.split(separator: "\n").first,
                let ready = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any],
                ready["event"] as? String == "ready", let port = ready["port"] as? Int
            {
                return TestSMTPServer(port: port, process: process)
            }
            guard process.isRunning else {
                throw FixtureFailure(
                    "the SMTP test server ended before it was ready (is aiosmtpd installed? pip install aiosmtpd): \(process.stderr)"
                )
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw FixtureFailure("the SMTP test server was not ready within 30 seconds: \(process.stderr)")
    }

    private static func stop(_ process: ProcessLaunch) async {
        process.signal(SIGTERM)
        _ = await process.waitForExit(timeout: .seconds(10))
    }

    /// A self-signed certificate for 127.0.0.1 and localhost, made by `openssl`, with its key.
    static func makeCertificate(in directory: URL) async throws -> (certificate: String, key: String, pem: String) {
        let key = directory.appendingPathComponent("smtp.key").path
        let certificate = directory.appendingPathComponent("smtp.crt").path
        let result = try await ProcessLaunch.runToCompletion(
            "/usr/bin/env",
            [
                "openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", key, "-out",
                certificate, "-days", "1", "-subj", "/CN=Nimbus test SMTP", "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost",
            ]
        )
        guard result.status == 0 else { throw FixtureFailure("openssl req failed: \(result.stderr)") }
        return (certificate, key, try String(contentsOfFile: certificate, encoding: .utf8))
    }
}
