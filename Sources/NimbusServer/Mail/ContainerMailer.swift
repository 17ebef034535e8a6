//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Logging
import NimbusEngine
import NimbusStore
import Synchronization

/// Sends each message through its container environment's own SMTP server when it has one
/// (`SignInSettings.smtpURL`, set with `nimbus auth smtp`), and through the server's mailer
/// otherwise, so several apps on one Nimbus mail from their own domains.
///
/// A container's SMTP URL that cannot be used fails that message (the outbox logs it) rather
/// than sending it through the server's mailer: the operator asked for that container's mail
/// to leave from its own server, under its own name.
final class ContainerMailer: Mailer {
    private let fallback: any Mailer
    private let settings: any SignInStore
    private let clock: any NimbusClock
    private let logger: Logger
    /// One mailer per URL seen: parsed once.
    private let mailers = Mutex<[String: SMTPMailer]>([:])

    init(fallback: any Mailer, settings: any SignInStore, clock: any NimbusClock, logger: Logger) {
        self.fallback = fallback
        self.settings = settings
        self.clock = clock
        self.logger = logger
    }

    func send(_ message: MailMessage) async throws {
        guard let sender = message.sender, let url = try await settings.signInSettings(for: sender)?.smtpURL else {
            return try await fallback.send(message)
        }
        try await mailer(for: url).send(message)
    }

    private func mailer(for url: String) throws -> SMTPMailer {
        if let known = mailers.withLock({ $0[url] }) { return known }
        let mailer = try SMTPMailer(configuration: try SMTPConfiguration(url: url), clock: clock, logger: logger)
        mailers.withLock { $0[url] = mailer }
        return mailer
    }
}
