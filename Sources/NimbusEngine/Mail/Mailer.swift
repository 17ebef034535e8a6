//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import Logging
import NimbusModel
public import NimbusStore

/// One email: to whom, about what, and its plain-text body.
public struct MailMessage: Sendable, Hashable {
    /// The recipient's address.
    public var to: String
    /// The subject line.
    public var subject: String
    /// The plain-text body.
    public var body: String
    /// The container environment the message is sent for: its own SMTP server, if it has one,
    /// sends it.
    public var sender: ContainerEnvironment?

    /// Creates a message.
    public init(to: String, subject: String, body: String, sender: ContainerEnvironment? = nil) {
        self.to = to
        self.subject = subject
        self.body = body
        self.sender = sender
    }
}

/// Sends email: the operator's SMTP server, or the log in development.
public protocol Mailer: Sendable {
    /// Sends one message; throws if the mail server refused it or could not be reached.
    func send(_ message: MailMessage) async throws
}

/// The development mailer: writes each message to the server's log instead of sending it.
///
/// Messages carry sign-in codes and links: never use it where the log is readable by anyone
/// who should not sign in as the recipients.
public struct LogMailer: Mailer {
    let logger: Logger

    /// Creates a mailer that logs to `logger`.
    public init(logger: Logger) {
        self.logger = logger
    }

    public func send(_ message: MailMessage) async throws {
        logger.notice(
            "Mail (development mailer: not sent)",
            metadata: [LogKey.address: "\(message.to)", "subject": "\(message.subject)", "body": "\(message.body)"]
        )
    }
}
