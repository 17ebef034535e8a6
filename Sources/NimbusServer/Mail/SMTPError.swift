//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

/// Why a message was not handed to the SMTP server, or why an SMTP configuration is unusable.
///
/// When the server refused something, ``reply`` holds its code and text (`550 5.1.1 No such
/// user`). The description never holds the password, nor the credentials as sent (`AUTH`'s
/// base64): ``MailOutbox`` logs it when a message fails.
public struct SMTPError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong. Extensible: new codes are static members.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Base: String, Sendable, Hashable {
            case invalidConfiguration, invalidMessage, connectionFailed, timedOut, tlsFailed
            case tlsUnavailable, authenticationUnavailable, authenticationFailed, refused, protocolViolation
        }
        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// An SMTP URL or configuration that cannot be used.
        public static let invalidConfiguration = Code(.invalidConfiguration)
        /// The message cannot be sent as it is: an address or subject holds a line break (which
        /// would inject a header or a command), or an address is not one. Nothing was sent.
        public static let invalidMessage = Code(.invalidMessage)
        /// The server could not be reached, or closed the connection before the message was taken.
        public static let connectionFailed = Code(.connectionFailed)
        /// Connecting, or one of the server's replies, took longer than the configured timeout.
        public static let timedOut = Code(.timedOut)
        /// The TLS handshake failed: often a certificate that is not trusted or names another host.
        public static let tlsFailed = Code(.tlsFailed)
        /// STARTTLS was required and the server does not offer it.
        public static let tlsUnavailable = Code(.tlsUnavailable)
        /// Credentials are configured and the server offers neither AUTH PLAIN nor AUTH LOGIN.
        public static let authenticationUnavailable = Code(.authenticationUnavailable)
        /// The server refused the user name and password; ``SMTPError/reply`` says how.
        public static let authenticationFailed = Code(.authenticationFailed)
        /// The server refused a step of the delivery (the sender, the recipient, the message);
        /// ``SMTPError/reply`` holds its code and text.
        public static let refused = Code(.refused)
        /// The server's reply is not SMTP, or the server broke the protocol.
        public static let protocolViolation = Code(.protocolViolation)

        public var description: String { base.rawValue }
    }

    /// What went wrong.
    public var code: Code
    /// What was being done, and what went wrong, for the operator.
    public var message: String
    /// The server's reply, when the server refused something.
    public var reply: SMTPReply?

    /// The server's reply code (such as 550), when the server refused something.
    public var replyCode: Int? { reply?.code }

    /// Creates an error.
    public init(_ code: Code, _ message: String, reply: SMTPReply? = nil) {
        self.code = code
        self.message = message
        self.reply = reply
    }

    public var description: String {
        guard let reply else { return "SMTP: \(message)" }
        return "SMTP: \(message): \(reply)"
    }
}
