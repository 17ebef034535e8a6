//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Foundation
import Logging
import NimbusServer
import Testing

/// Reading SMTP URLs, and keeping the password out of everything printed.
@Suite("SMTP configuration")
struct SMTPConfigurationTests {
    @Test("smtp:// is STARTTLS on 587, smtps:// TLS on 465, smtp+plain:// plain on 25; user and password are percent-decoded")
    func schemes() throws {
        let startTLS = try SMTPConfiguration(url: "smtp://nimbus:p%40ss%3Aw%C3%B6rd@mail.example.com?from=nimbus@example.com&from_name=Nimbus%20Team")
        #expect(startTLS.host == "mail.example.com")
        #expect(startTLS.port == 587)
        #expect(startTLS.security == .startTLS)
        #expect(startTLS.username == "nimbus")
        #expect(startTLS.password == "p@ss:wörd")
        #expect(startTLS.from == "nimbus@example.com")
        #expect(startTLS.fromName == "Nimbus Team")
        #expect(startTLS.timeout == .seconds(30))

        let tls = try SMTPConfiguration(url: "smtps://mail.example.com?from=nimbus@example.com")
        #expect(tls.port == 465)
        #expect(tls.security == .tls)
        #expect(tls.username == nil && tls.password == nil)

        let plain = try SMTPConfiguration(url: "smtp+plain://localhost:1025?from=nimbus@example.com")
        #expect(plain.port == 1025)
        #expect(plain.security == SMTPConfiguration.Security.none)

        let ipv6 = try SMTPConfiguration(url: "smtp+plain://[::1]:2525?from=nimbus@example.com")
        #expect(ipv6.host == "::1")
        #expect(try SMTPConfiguration(url: "smtp+plain://127.0.0.2?from=nimbus@example.com").port == 25)
    }

    @Test(
        "unusable SMTP URLs are refused with what is wrong",
        arguments: [
            ("smtp+plain://mail.example.com?from=nimbus@example.com", "only for a server on this machine"),
            ("smtp+plain://127.0.0.1.example.com?from=nimbus@example.com", "only for a server on this machine"),
            ("http://mail.example.com?from=nimbus@example.com", "scheme"),
            ("smtp://mail.example.com", "from="),
            ("smtp://mail.example.com?from=not-an-address", "from is not a usable address"),
            ("smtp://mail.example.com?from=nimbus@example.com&form=x", "unknown SMTP URL parameter form"),
            ("smtp://nimbus@mail.example.com?from=nimbus@example.com", "needs a password"),
            ("smtp://:secret@mail.example.com?from=nimbus@example.com", "needs a user name"),
            ("smtp://mail.example.com?from=nimbus@example.com&from_name=a%0D%0ABcc:%20eve@example.com", "from_name"),
            ("smtp://mail.example.com/path?from=nimbus@example.com", "no path"),
            ("smtp://?from=nimbus@example.com", "no host"),
        ]
    )
    func refusedURLs(url: String, reason: String) {
        #expect {
            try SMTPConfiguration(url: url)
        } throws: { error in
            let error = error as? SMTPError
            return error?.code == .invalidConfiguration && error?.message.contains(reason) == true
        }
    }

    @Test("an error about a URL never repeats its password")
    func errorsHoldNoPassword() throws {
        let error = try #require(throws: SMTPError.self) {
            try SMTPConfiguration(url: "smtp+plain://nimbus:Secret-Pa55@mail.example.com?from=nimbus@example.com")
        }
        #expect(!"\(error)".contains("Secret-Pa55"))
    }

    @Test("the password is in no description, debug description, reflection or dump, nor in what holds the configuration")
    func passwordIsRedacted() throws {
        let password = "Secret-Pa55-\(UUID().uuidString)"
        let smtp = try SMTPConfiguration(url: "smtp://nimbus:\(password)@mail.example.com?from=nimbus@example.com")
        var server = ServerConfiguration(dataDirectory: "data")
        server.smtp = smtp
        let mailer = try SMTPMailer(configuration: smtp, logger: Logger(label: "test"))
        func shown(_ value: Any) -> [String] {
            var dumped = ""
            dump(value, to: &dumped)
            return [String(describing: value), String(reflecting: value), dumped]
        }
        for text in shown(smtp) + shown(server) + shown(mailer) {
            #expect(!text.contains(password), "\(text)")
            #expect(text.contains("mail.example.com"), "\(text)")
        }
        #expect("\(smtp)".contains("password: set (redacted)"))
    }

    @Test("a configuration built in code is checked as a URL is")
    func validatesCode() {
        let remotePlain = SMTPConfiguration(host: "mail.example.com", security: .none, from: "nimbus@example.com")
        #expect(throws: SMTPError.self) { try SMTPMailer(configuration: remotePlain, logger: Logger(label: "test")) }
        let badTrust = SMTPConfiguration(host: "mail.example.com", from: "nimbus@example.com", additionalTrustRootsPEM: "not a certificate")
        #expect(throws: SMTPError.self) { try SMTPMailer(configuration: badTrust, logger: Logger(label: "test")) }
        #expect(SMTPConfiguration(host: "mail.example.com", security: .tls, from: "nimbus@example.com").port == 465)
    }
}
