//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import Logging
import NimbusModel
public import NimbusStore

/// POSTs the inbox entries of server-to-server keys to their webhooks.
///
/// A webhook is a push token of its key's inbox, with a position, as an APNs token is: a pass
/// claims the webhooks with entries past their position (a lease, so that several instances
/// on one database do not send the same entries), sends those entries in order, a page per
/// request, and moves the position past each page the receiver answered with a 2xx. Any
/// other answer, or none, sends the same page again after a back-off (one second, doubling, at
/// most ten minutes): delivery is at-least-once and in order, and entries carry the inbox's
/// sequence numbers and IDs, so a receiver drops what it has seen. Entries leave the inbox at
/// its retention, and with them what is still owed.
public final class WebhookDelivery: Sendable {
    let tokens: any PushTokenStore
    let notifications: any NotificationStore
    let sender: any WebhookSender
    let serverKey: [UInt8]
    let wake: ChangeSignal
    let clock: any NimbusClock
    let pollInterval: Duration
    let logger: Logger

    /// Webhooks claimed per pass, and sent to at the same time.
    static let webhooksPerPass = 16
    /// Entries per request.
    static let entriesPerRequest = 50

    /// Creates the delivery.
    /// - Parameters:
    ///   - serverKey: the server's token key, from which each webhook's secret is derived
    ///     (``WebhookSecret``).
    ///   - wake: fired when entries were written (``NotificationHub/writtenForWebhooks``).
    ///   - pollInterval: how often to look for due webhooks without a wake-up.
    public init(
        tokens: any PushTokenStore,
        notifications: any NotificationStore,
        sender: any WebhookSender,
        serverKey: [UInt8],
        wake: ChangeSignal,
        clock: any NimbusClock,
        pollInterval: Duration = .seconds(1),
        logger: Logger
    ) {
        self.tokens = tokens
        self.notifications = notifications
        self.sender = sender
        self.serverKey = serverKey
        self.wake = wake
        self.clock = clock
        self.pollInterval = pollInterval
        self.logger = logger
    }

    /// Sends whenever entries are written (and every poll interval) until cancelled.
    public func run() async {
        while !Task.isCancelled {
            do {
                try await sendDue()
            } catch {
                logger.warning("Sending notifications to webhooks failed", metadata: [LogKey.error: "\(error)"])
                await StoreFailureWait.wait()
                continue
            }
            await wake.wait(atMost: pollInterval, on: clock)
        }
    }

    /// Sends everything due now; returns how many entries receivers accepted.
    @discardableResult
    public func sendDue() async throws -> Int {
        try await PushTokenDelivery.deliverDue(.webhook, tokens: tokens, clock: clock, perPass: Self.webhooksPerPass) { webhook in
            await self.send(to: webhook)
        }
    }

    /// Sends one webhook's entries past its position; returns how many were accepted.
    private func send(to webhook: PushToken) async -> Int {
        guard let url = webhook.apnsToken, let keyID = webhook.key.split(separator: "/").last.map(String.init) else {
            try? await tokens.deletePushToken(webhook.key)
            return 0
        }
        let secret = WebhookSecret.derive(serverKey: serverKey, keyID: keyID, url: url)
        var position = webhook.deliveredThrough
        var failures = webhook.failures
        var nextAttempt: Int64 = 0
        var accepted = 0
        // Stop well within the lease: past it another instance may claim the webhook and send
        // from the saved position, out of order with what this one still sends.
        let stopBy = clock.millisecondsSince1970 + PushTokenDelivery.lease / 2
        do {
            while clock.millisecondsSince1970 < stopBy {
                let entries = try await notifications.inbox(
                    of: webhook.userRecordName,
                    in: webhook.container,
                    after: position,
                    limit: Self.entriesPerRequest
                )
                guard let last = entries.last else { break }
                if case .retryLater(let reason) = await sender.send(entries, to: url, secret: secret) {
                    failures += 1
                    nextAttempt = clock.millisecondsSince1970 + PushTokenDelivery.backoff(afterFailures: failures, retryAfter: nil)
                    logger.notice(
                        "A webhook did not take its notifications; they are sent again later",
                        metadata: [LogKey.reason: "\(reason)", LogKey.failures: "\(failures)"]
                    )
                    break
                }
                position = last.sequence
                failures = 0
                accepted += entries.count
                if entries.count < Self.entriesPerRequest { break }
            }
        } catch {
            logger.warning("Reading an inbox for a webhook failed", metadata: [LogKey.error: "\(error)"])
            nextAttempt = clock.millisecondsSince1970 + PushTokenDelivery.backoff(afterFailures: failures + 1, retryAfter: nil)
        }
        do {
            try await tokens.releasePushToken(webhook.key, deliveredThrough: position, failures: failures, nextAttemptAt: nextAttempt)
        } catch {
            logger.warning("Saving a webhook's position failed", metadata: [LogKey.error: "\(error)"])
        }
        return accepted
    }
}
