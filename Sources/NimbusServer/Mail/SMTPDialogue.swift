//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NIOSSL

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The client's side of one SMTP session that hands over one message (RFC 5321 3): greeting,
/// `EHLO`, `STARTTLS` and `EHLO` again, `AUTH`, `MAIL FROM`, `RCPT TO`, `DATA`, `QUIT`.
///
/// Straight-line code rather than a state machine that returns actions (the shape the style
/// guide asks of protocol logic): a client's SMTP is strictly one command and then its reply,
/// so the code reads as the RFC's sequence, and a failure is a throw at the step that failed,
/// with the server's reply.
struct SMTPDialogue {
    let connection: SMTPConnection
    let configuration: SMTPConfiguration
    /// The TLS context for STARTTLS, when the configuration asks for it.
    let tls: NIOSSLContext?
    let serverHostname: String?

    /// Hands `message` to the server; returns once the server has taken responsibility for it.
    func deliver(_ message: SMTPMessage) async throws {
        let greeting = try await connection.reply()
        guard greeting.code == 220 else { throw refused("the server turned the connection away", greeting) }
        var capabilities = try await hello()
        if configuration.security == .startTLS {
            guard let tls else { preconditionFailure("SMTPMailer makes a TLS context for STARTTLS") }
            guard capabilities.contains("STARTTLS") else {
                throw SMTPError(.tlsUnavailable, "the server does not offer STARTTLS, which smtp:// requires (smtps:// is TLS from the start)")
            }
            try expect(await connection.send("STARTTLS"), 220, "STARTTLS")
            try await connection.startTLS(tls, serverHostname: serverHostname)
            // RFC 3207 4.2: what the server said before TLS may have been forged; ask again.
            capabilities = try await hello()
        }
        if let username = configuration.username, let password = configuration.password {
            try await authenticate(username: username, password: password, capabilities)
        }
        try expect(await connection.send("MAIL FROM:<\(message.sender)>"), 250, "the sender (MAIL FROM)")
        let recipient = try await connection.send("RCPT TO:<\(message.recipient)>")
        guard recipient.code == 250 || recipient.code == 251 else { throw refused("the server refused the recipient (RCPT TO)", recipient) }
        try expect(await connection.send("DATA"), 354, "DATA")
        try await connection.write(message.data)
        try expect(await connection.reply(), 250, "the message")
        // The message is the server's now: a failed goodbye changes nothing.
        _ = try? await connection.send("QUIT")
    }

    /// Says `EHLO`, or `HELO` to a server that does not know it; returns what the server offers.
    private func hello() async throws -> SMTPCapabilities {
        let domain = connection.localAddressLiteral
        let ehlo = try await connection.send("EHLO \(domain)")
        if ehlo.code == 250 { return SMTPCapabilities(ehlo: ehlo) }
        // RFC 5321 3.2: a server that does not know EHLO answers 5xx, and still knows HELO.
        guard ehlo.isPermanentFailure else { throw refused("the server refused EHLO", ehlo) }
        try expect(await connection.send("HELO \(domain)"), 250, "HELO")
        return SMTPCapabilities()
    }

    /// Signs in with `AUTH PLAIN` (RFC 4616), or `AUTH LOGIN` where only that is offered.
    private func authenticate(username: String, password: String, _ capabilities: SMTPCapabilities) async throws {
        func base64(_ text: String) -> String { Data(text.utf8).base64EncodedString() }
        let mechanisms = capabilities.authenticationMechanisms
        let plain = base64("\0\(username)\0\(password)")
        // Whatever the server echoes, its reply never carries the credentials into an error.
        let secrets = [password, plain, base64(password)]
        let mechanism: String
        var reply: SMTPReply
        if mechanisms.contains("PLAIN") {
            mechanism = "PLAIN"
            reply = try await connection.send("AUTH PLAIN \(plain)")
            // A server that takes no initial response asks for it with an empty challenge.
            if reply.code == 334 { reply = try await connection.send(plain) }
        } else if mechanisms.contains("LOGIN") {
            mechanism = "LOGIN"
            reply = try await connection.send("AUTH LOGIN")
            if reply.code == 334 { reply = try await connection.send(base64(username)) }
            if reply.code == 334 { reply = try await connection.send(base64(password)) }
        } else if mechanisms.isEmpty {
            throw SMTPError(.authenticationUnavailable, "a user name is configured and the server offers no AUTH")
        } else {
            let offered = mechanisms.sorted().joined(separator: " ")
            throw SMTPError(.authenticationUnavailable, "the server offers AUTH \(offered), and neither PLAIN nor LOGIN")
        }
        guard reply.code == 235 else {
            throw SMTPError(
                .authenticationFailed,
                "the server refused the user name and password (AUTH \(mechanism))",
                reply: reply.redacting(secrets)
            )
        }
    }

    private func expect(_ reply: SMTPReply, _ code: Int, _ step: String) throws {
        guard reply.code == code else { throw refused("the server refused \(step)", reply) }
    }

    private func refused(_ message: String, _ reply: SMTPReply) -> SMTPError {
        SMTPError(.refused, message, reply: reply)
    }
}

extension SMTPReply {
    /// The reply with every occurrence of a secret replaced by `***`.
    fileprivate func redacting(_ secrets: [String]) -> SMTPReply {
        var reply = self
        for secret in secrets where !secret.isEmpty {
            reply.lines = reply.lines.map { $0.replacing(secret, with: "***") }
        }
        return reply
    }
}
