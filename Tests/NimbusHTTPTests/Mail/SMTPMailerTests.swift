//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Foundation
import Logging
import NimbusEngine
import NimbusServer
import NimbusStore
import Testing

/// ``SMTPMailer`` against a real SMTP server (aiosmtpd) on 127.0.0.1: what arrives, and how
/// each kind of refusal is reported.
@Suite("SMTPMailer against a real SMTP server", .timeLimit(.minutes(2)))
struct SMTPMailerTests {
    /// 2026-02-28 23:59:59 UTC.
    static let clock = FixedClock(now: WallInstant(millisecondsSince1970: 1_772_323_199_000))
    static let logger = Logger(label: "smtp-test")

    static func mailer(_ url: String, trusting pem: String? = nil, timeout: Duration? = nil) throws -> SMTPMailer {
        var configuration = try SMTPConfiguration(url: url)
        configuration.additionalTrustRootsPEM = pem
        if let timeout { configuration.timeout = timeout }
        return try SMTPMailer(configuration: configuration, clock: clock, logger: logger)
    }

    /// Runs `body` with a directory holding a certificate for 127.0.0.1 and localhost.
    static func withCertificate(_ body: ((certificate: String, key: String, pem: String)) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nimbus-smtp-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try await body(try await TestSMTPServer.makeCertificate(in: directory))
    }

    @Test("a message arrives with its envelope, headers, UTF-8 subject and body, and lines starting with a dot intact")
    func deliversAMessage() async throws {
        let subject = "Ihr Anmeldecode: 123456 ✓ 日本語のテスト, and a subject long enough to need more than one encoded-word"
        let body = [
            "Your code is 123456.", ".a line that starts with a dot", ".", "..", "Grüße 👋 from Zürich",
            String(repeating: "a-long-line=", count: 20), "trailing space ", "tab\tinside", "last line",
        ].joined(separator: "\n")
        try await TestSMTPServer.with { server in
            let mailer = try Self.mailer("smtp+plain://127.0.0.1:\(server.port)?from=nimbus@example.com&from_name=Nimbus%20Sign-in")
            try await mailer.send(MailMessage(to: "ann@example.com", subject: subject, body: body))

            #expect(server.messages.count == 1)
            let message = try #require(server.messages.first)
            #expect(message.mailFrom == "nimbus@example.com")
            #expect(message.rcptTos == ["ann@example.com"])
            #expect(message.headers["From"] == "Nimbus Sign-in <nimbus@example.com>")
            #expect(message.headers["To"] == "ann@example.com")
            #expect(message.headers["Subject"] == subject)
            #expect(message.headers["Date"] == "Sat, 28 Feb 2026 23:59:59 +0000")
            #expect(message.headers["MIME-Version"] == "1.0")
            #expect(message.raw.contains("\r\nContent-Type: text/plain; charset=utf-8\r\n"))
            #expect(message.headers["Content-Transfer-Encoding"] == "quoted-printable")
            #expect(message.headers["Auto-Submitted"] == "auto-generated")
            let messageID = try #require(message.headers["Message-ID"])
            #expect(messageID.wholeMatch(of: /<[0-9a-f-]{36}@example\.com>/) != nil, "\(messageID)")
            // The transfer encoding undone, the body is the text sent, line for line.
            #expect(message.body == body + "\n")
            // On the wire: 7-bit, short lines, CRLF only, the subject in encoded-words.
            let lines = message.raw.components(separatedBy: "\r\n")
            #expect(lines.allSatisfy { $0.utf8.count <= 78 }, "\(lines.filter { $0.utf8.count > 78 })")
            #expect(message.raw.utf8.allSatisfy { $0 < 128 })
            #expect(!message.raw.replacingOccurrences(of: "\r\n", with: "").contains("\n"))
            #expect(message.raw.contains("Subject: =?UTF-8?B?"))
            #expect(lines.contains(".a line that starts with a dot"))
            #expect(server.eventNames == ["connect", "ehlo", "message"])
        }
    }

    @Test("AUTH PLAIN with the right credentials, percent-decoded from the URL, is accepted")
    func authPlain() async throws {
        try await TestSMTPServer.with(["--auth", "nimbus:p@ss:wörd/%"]) { server in
            let mailer = try Self.mailer("smtp+plain://nimbus:p%40ss%3Aw%C3%B6rd%2F%25@127.0.0.1:\(server.port)?from=nimbus@example.com")
            try await mailer.send(MailMessage(to: "ann@example.com", subject: "Your code", body: "123456"))
            let auth = try #require(server.events.first { $0["event"] as? String == "auth" })
            #expect(auth["mechanism"] as? String == "PLAIN")
            #expect(auth["login"] as? String == "nimbus")
            #expect(auth["success"] as? Bool == true)
            #expect(server.messages.first?.authenticated == true)
        }
    }

    @Test("AUTH LOGIN is used where the server offers only LOGIN")
    func authLogin() async throws {
        try await TestSMTPServer.with(["--auth", "nimbus:secret", "--mechanisms", "LOGIN"]) { server in
            let mailer = try Self.mailer("smtp+plain://nimbus:secret@127.0.0.1:\(server.port)?from=nimbus@example.com")
            try await mailer.send(MailMessage(to: "ann@example.com", subject: "Your code", body: "123456"))
            let auth = try #require(server.events.first { $0["event"] as? String == "auth" })
            #expect(auth["mechanism"] as? String == "LOGIN")
            #expect(auth["success"] as? Bool == true)
            #expect(server.messages.count == 1)
        }
    }

    @Test("a wrong password fails with the server's 535, names AUTH, holds no credentials, and sends nothing")
    func wrongPassword() async throws {
        let password = "wrong-Pa55word"
        try await TestSMTPServer.with(["--auth", "nimbus:right"]) { server in
            let mailer = try Self.mailer("smtp+plain://nimbus:\(password)@127.0.0.1:\(server.port)?from=nimbus@example.com")
            let error = try await #require(throws: SMTPError.self) {
                try await mailer.send(MailMessage(to: "ann@example.com", subject: "Your code", body: "123456"))
            }
            #expect(error.code == .authenticationFailed)
            #expect(error.replyCode == 535)
            #expect("\(error)".contains("535") && "\(error)".contains("AUTH PLAIN"), "\(error)")
            let plain = Data("\0nimbus\0\(password)".utf8).base64EncodedString()
            for shown in ["\(error)", String(reflecting: error)] {
                #expect(!shown.contains(password) && !shown.contains(plain), "\(shown)")
            }
            #expect(server.messages.isEmpty)
            #expect(server.events.first { $0["event"] as? String == "auth" }?["success"] as? Bool == false)
        }
    }

    @Test("a refused recipient throws with the server's 550, and the next message goes through")
    func refusedRecipient() async throws {
        try await TestSMTPServer.with(["--refuse", "nobody@example.com"]) { server in
            let mailer = try Self.mailer("smtp+plain://127.0.0.1:\(server.port)?from=nimbus@example.com")
            let error = try await #require(throws: SMTPError.self) {
                try await mailer.send(MailMessage(to: "nobody@example.com", subject: "Your code", body: "123456"))
            }
            #expect(error.code == .refused)
            #expect(error.replyCode == 550)
            #expect(error.reply?.text.contains("no such user") == true)
            #expect("\(error)".contains("RCPT TO") && "\(error)".contains("550"), "\(error)")
            #expect(server.messages.isEmpty)

            try await mailer.send(MailMessage(to: "ann@example.com", subject: "Your code", body: "123456"))
            #expect(server.messages.map(\.rcptTos) == [["ann@example.com"]])
        }
    }

    @Test(
        "a recipient or subject with a line break throws before anything is sent",
        arguments: [
            MailMessage(to: "ann@example.com\r\nBcc: eve@example.com", subject: "Your code", body: "1"),
            MailMessage(to: "ann@example.com\nBcc: eve@example.com", subject: "Your code", body: "1"),
            MailMessage(to: "ann@example.com>\r\nRCPT TO:<eve@example.com", subject: "Your code", body: "1"),
            MailMessage(to: "ann@example.com", subject: "Your code\r\nBcc: eve@example.com", body: "1"),
            MailMessage(to: "ann@example.com", subject: "Your code\nBcc: eve@example.com", body: "1"),
            MailMessage(to: "ann@example.com", subject: "Your code\rBcc: eve@example.com", body: "1"),
            MailMessage(to: "ann@example.com", subject: "Dein Code\u{2028}Bcc: eve@example.com", body: "1"),
        ]
    )
    func headerInjection(_ message: MailMessage) async throws {
        try await TestSMTPServer.with { server in
            let mailer = try Self.mailer("smtp+plain://127.0.0.1:\(server.port)?from=nimbus@example.com")
            let error = try await #require(throws: SMTPError.self) { try await mailer.send(message) }
            #expect(error.code == .invalidMessage)
            // Not a message refused: no connection at all.
            #expect(server.eventNames.isEmpty, "\(server.events)")
        }
    }

    @Test("STARTTLS upgrades before AUTH, with the certificate checked against the host name")
    func startTLS() async throws {
        try await Self.withCertificate { tls in
            try await TestSMTPServer.with(["--starttls", tls.certificate, tls.key, "--auth", "nimbus:secret"]) { server in
                let mailer = try Self.mailer("smtp://nimbus:secret@localhost:\(server.port)?from=nimbus@example.com", trusting: tls.pem)
                try await mailer.send(MailMessage(to: "ann@example.com", subject: "Your code", body: "123456"))
                let events = server.events.dropFirst().map { "\($0["event"] ?? "")\($0["tls"] as? Bool == true ? "+tls" : "")" }
                #expect(events == ["connect", "ehlo", "ehlo+tls", "auth+tls", "message+tls"])
                #expect(server.messages.first?.authenticated == true)
            }
        }
    }

    @Test("STARTTLS to a server whose certificate is not trusted fails, and sends neither password nor message")
    func untrustedCertificate() async throws {
        try await Self.withCertificate { tls in
            try await TestSMTPServer.with(["--starttls", tls.certificate, tls.key, "--auth", "nimbus:secret"]) { server in
                let mailer = try Self.mailer("smtp://nimbus:secret@127.0.0.1:\(server.port)?from=nimbus@example.com")
                let error = try await #require(throws: SMTPError.self) {
                    try await mailer.send(MailMessage(to: "ann@example.com", subject: "Your code", body: "123456"))
                }
                #expect(error.code == .tlsFailed, "\(error)")
                #expect(server.eventNames == ["connect", "ehlo"])
            }
        }
    }

    @Test("smtp:// to a server without STARTTLS fails rather than sending in the clear")
    func noDowngrade() async throws {
        try await TestSMTPServer.with(["--auth", "nimbus:secret"]) { server in
            let mailer = try Self.mailer("smtp://nimbus:secret@127.0.0.1:\(server.port)?from=nimbus@example.com")
            let error = try await #require(throws: SMTPError.self) {
                try await mailer.send(MailMessage(to: "ann@example.com", subject: "Your code", body: "123456"))
            }
            #expect(error.code == .tlsUnavailable)
            #expect(server.eventNames == ["connect", "ehlo"])
        }
    }

    @Test("a reply sent unencrypted right behind STARTTLS's go-ahead is refused, not read as an answer over TLS")
    func startTLSInjection() async throws {
        // The script writes the go-ahead and the forged reply in one write, which on loopback
        // arrives in one read: the client has both before it would start TLS.
        try await TestSMTPServer.with(["--inject"]) { server in
            let mailer = try Self.mailer("smtp://nimbus:secret@127.0.0.1:\(server.port)?from=nimbus@example.com")
            let error = try await #require(throws: SMTPError.self) {
                try await mailer.send(MailMessage(to: "ann@example.com", subject: "Your code", body: "123456"))
            }
            #expect(error.code == .protocolViolation, "\(error)")
            // Nothing after STARTTLS but, perhaps, the goodbye of a client that gives up.
            let commands = server.events.compactMap { $0["command"] as? String }
            #expect(commands.count >= 2 && commands[1] == "STARTTLS", "\(commands)")
            #expect(commands.dropFirst(2).allSatisfy { $0 == "QUIT" }, "\(commands)")
        }
    }

    @Test("smtps:// speaks TLS from the first byte, the certificate checked against the IP address")
    func implicitTLS() async throws {
        try await Self.withCertificate { tls in
            try await TestSMTPServer.with(["--tls", tls.certificate, tls.key]) { server in
                let mailer = try Self.mailer("smtps://127.0.0.1:\(server.port)?from=nimbus@example.com", trusting: tls.pem)
                try await mailer.send(MailMessage(to: "ann@example.com", subject: "Your code", body: "123456"))
                #expect(server.messages.count == 1)
                #expect(server.messages.first?.overTLS == true)
            }
        }
    }

    @Test("a server that only knows HELO still gets the message")
    func heloFallback() async throws {
        try await TestSMTPServer.with(["--no-ehlo"]) { server in
            let mailer = try Self.mailer("smtp+plain://127.0.0.1:\(server.port)?from=nimbus@example.com")
            try await mailer.send(MailMessage(to: "ann@example.com", subject: "Your code", body: "123456"))
            #expect(server.eventNames == ["connect", "helo", "message"])
        }
    }

    @Test("a server that accepts the connection and never answers fails the message at the timeout")
    func silentServer() async throws {
        try await TestSMTPServer.with(["--silent"]) { server in
            let mailer = try Self.mailer("smtp+plain://127.0.0.1:\(server.port)?from=nimbus@example.com", timeout: .seconds(1))
            let started = ContinuousClock.now
            let error = try await #require(throws: SMTPError.self) {
                try await mailer.send(MailMessage(to: "ann@example.com", subject: "Your code", body: "123456"))
            }
            #expect(error.code == .timedOut, "\(error)")
            #expect(ContinuousClock.now - started < .seconds(10))
            #expect(server.eventNames == ["connect"])
        }
    }

    @Test("a server that answers 554 and hangs up is reported with its 554, however fast it hangs up")
    func turnedAway() async throws {
        try await TestSMTPServer.with(["--turn-away"]) { server in
            let mailer = try Self.mailer("smtp+plain://127.0.0.1:\(server.port)?from=nimbus@example.com")
            // The server's close can reach the connection before it is handed over: many tries,
            // since how the two interleave depends on timing.
            for _ in 0..<50 {
                let error = try await #require(throws: SMTPError.self) {
                    try await mailer.send(MailMessage(to: "ann@example.com", subject: "Your code", body: "123456"))
                }
                #expect(error.code == .refused, "\(error)")
                #expect(error.replyCode == 554)
                #expect(error.reply?.text == "5.3.2 smtp.test is not taking mail now")
            }
        }
    }

    @Test("an instance configured with SMTP mails a sign-in code through it")
    func instanceMailsSignInCodes() async throws {
        try await TestSMTPServer.with { server in
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nimbus-smtp-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: directory) }
            var configuration = ServerConfiguration(dataDirectory: directory.path)
            configuration.smtp = try SMTPConfiguration(url: "smtp+plain://127.0.0.1:\(server.port)?from=nimbus@example.com")
            let instance = try await NimbusInstance.open(configuration, logger: Self.logger)
            try await instance.withServices {
                let container = "iCloud.test.smtp"
                _ = try await instance.accounts.createContainer(container, environment: .development)
                let context = SignInContext(container: container, environment: .development, clientAddress: nil, device: nil)
                _ = try await instance.signIn.requestCode(email: "ann@example.com", name: nil, context: context)
                // The outbox sends in the background: wait for the server to have the message.
                let deadline = ContinuousClock.now + .seconds(20)
                while server.messages.isEmpty, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
            }
            let message = try #require(server.messages.first, "no mail arrived: \(server.events)")
            #expect(message.rcptTos == ["ann@example.com"])
            let code = try #require(message.headers["Subject"]?.wholeMatch(of: /Your code: ([0-9]+)/)?.1, "\(message.headers)")
            #expect(message.body.contains("is \(code)."), "\(message.body)")
        }
    }
}

/// A clock that stands still, for a `Date` header known in advance.
struct FixedClock: NimbusClock {
    var now: WallInstant
    var minimumResolution: Duration { .milliseconds(1) }
    func sleep(until deadline: WallInstant, tolerance: Duration?) async throws {}
}
