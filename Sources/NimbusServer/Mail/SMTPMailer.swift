//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import Logging
import NIOSSL
public import NimbusEngine
import NimbusModel
public import NimbusStore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Sends mail through the operator's SMTP server (RFC 5321), such as the sign-in codes of
/// ``SignInService``.
///
/// A small client written here on SwiftNIO: the packages Nimbus can depend on hold no SMTP
/// library, and sending one plain-text message needs only a few commands. It speaks `EHLO`
/// (falling back to `HELO`), `STARTTLS` (RFC 3207) or implicit TLS (RFC 8314) with the
/// certificate checked as a browser would, `AUTH PLAIN` or `AUTH LOGIN`, and `MAIL FROM`,
/// `RCPT TO`, `DATA` and `QUIT`. Messages are UTF-8 text, quoted-printable, with a subject in
/// RFC 2047 encoded-words when it is not plain ASCII.
///
/// Each message gets its own connection. Sign-in mail is rare and throttled, and
/// ``MailOutbox`` sends one message at a time; a connection kept open would need keep-alives
/// and reconnecting after the server's idle timeout (RFC 5321 allows it to close after five
/// minutes), for a saving nobody would notice.
///
/// Connecting, and every reply of the server, is bounded by ``SMTPConfiguration/timeout``, so
/// a server that stopped answering fails the message (which the outbox logs and drops) rather
/// than holding the outbox.
///
/// ```swift
/// let configuration = try SMTPConfiguration(url: "smtp://nimbus:secret@mail.example.com?from=nimbus@example.com")
/// let mailer = try SMTPMailer(configuration: configuration, logger: logger)
/// try await mailer.send(MailMessage(to: "ann@example.com", subject: "Your code", body: "123456"))
/// ```
public struct SMTPMailer: Mailer {
    private let configuration: SMTPConfiguration
    private let from: MailAddress
    private let tls: NIOSSLContext?
    private let serverHostname: String?
    private let clock: any NimbusClock
    private let logger: Logger

    /// Creates a mailer; connects to nothing until a message is sent.
    /// - Parameters:
    ///   - configuration: The server, the credentials and the sender.
    ///   - clock: The clock the `Date` header is read from.
    ///   - logger: Where each message sent is noted, at debug level.
    /// - Throws: ``SMTPError`` with ``SMTPError/Code/invalidConfiguration`` for a configuration
    ///   ``SMTPConfiguration/validate()`` refuses, or trust roots that cannot be read.
    public init(configuration: SMTPConfiguration, clock: any NimbusClock = SystemClock(), logger: Logger) throws(SMTPError) {
        try configuration.validate()
        do {
            from = try MailAddress(configuration.from)
        } catch {
            throw SMTPError(.invalidConfiguration, "from is not a usable address: \(error.message)")
        }
        if configuration.security == .none {
            tls = nil
        } else {
            var tlsConfiguration = TLSConfiguration.makeClientConfiguration()
            do {
                if let pem = configuration.additionalTrustRootsPEM {
                    tlsConfiguration.additionalTrustRoots = [.certificates(try NIOSSLCertificate.fromPEMBytes(Array(pem.utf8)))]
                }
                tls = try NIOSSLContext(configuration: tlsConfiguration)
            } catch {
                throw SMTPError(.invalidConfiguration, "cannot set up TLS for SMTP (\(error))")
            }
        }
        // An IP address is no server name (SNI); the certificate is then checked against the
        // address connected to.
        serverHostname = Self.isIPAddress(configuration.host) ? nil : configuration.host
        self.configuration = configuration
        self.clock = clock
        self.logger = logger
    }

    /// Hands `message` to the SMTP server; returns once the server has taken it.
    ///
    /// - Throws: ``SMTPError``: ``SMTPError/Code/invalidMessage`` (before connecting) for an
    ///   address or subject with a line break; ``SMTPError/Code/refused`` with the server's
    ///   reply when it refused the sender, the recipient or the message;
    ///   ``SMTPError/Code/authenticationFailed``, ``SMTPError/Code/tlsFailed``,
    ///   ``SMTPError/Code/timedOut`` and ``SMTPError/Code/connectionFailed`` as they say.
    public func send(_ message: MailMessage) async throws {
        let prepared = try SMTPMessage(
            message,
            from: from,
            fromName: configuration.fromName,
            date: RFC5322Date.format(millisecondsSince1970: clock.millisecondsSince1970),
            messageID: UUID().uuidString.lowercased()
        )
        let connection = try await SMTPConnection.connect(
            host: configuration.host,
            port: configuration.port,
            tls: configuration.security == .tls ? tls : nil,
            serverHostname: serverHostname,
            timeout: configuration.timeout
        )
        do {
            let dialogue = SMTPDialogue(
                connection: connection,
                configuration: configuration,
                tls: configuration.security == .startTLS ? tls : nil,
                serverHostname: serverHostname
            )
            try await dialogue.deliver(prepared)
        } catch {
            await connection.close(quit: true)
            throw error
        }
        await connection.close(quit: false)
        logger.debug("Mail sent", metadata: [LogKey.address: "\(message.to)"])
    }

    private static func isIPAddress(_ host: String) -> Bool {
        host.contains(":") || (host.split(separator: ".").count == 4 && host.split(separator: ".").allSatisfy { UInt8($0) != nil })
    }
}

/// A mailer holds the SMTP password: printed, it shows only its configuration, redacted.
extension SMTPMailer: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var description: String { "SMTPMailer(\(configuration))" }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: ["configuration": configuration], displayStyle: .struct) }
}
