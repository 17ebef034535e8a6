//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import Logging

/// Sends mail in the background, so a request's answer and timing never depend on whether it
/// sent a message, or on the mail server.
///
/// Sign-up and sign-in answer the same for an address with an account and one without, in
/// content and in time; the mail each sends differs. Queuing it here is what keeps the time
/// equal. A message that cannot be sent is logged (without its body) and dropped: the person
/// asks again.
public final class MailOutbox: Sendable {
    private let stream: AsyncStream<MailMessage>
    private let continuation: AsyncStream<MailMessage>.Continuation
    private let mailer: any Mailer
    private let logger: Logger

    /// Creates an outbox that sends through `mailer`; at most `capacity` messages wait.
    public init(mailer: any Mailer, logger: Logger, capacity: Int = 10_000) {
        (stream, continuation) = AsyncStream.makeStream(of: MailMessage.self, bufferingPolicy: .bufferingNewest(capacity))
        self.mailer = mailer
        self.logger = logger
    }

    /// Queues a message.
    public func post(_ message: MailMessage) {
        continuation.yield(message)
    }

    /// Sends queued messages until the task is cancelled.
    public func run() async {
        await withTaskCancellationHandler {
            for await message in stream {
                do {
                    try await mailer.send(message)
                } catch {
                    logger.warning("Sending mail failed", metadata: ["subject": "\(message.subject)", "error": "\(error)"])
                }
            }
        } onCancel: { [continuation] in
            continuation.finish()
        }
    }
}
