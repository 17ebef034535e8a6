//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import Logging
import NimbusModel
public import NimbusStore

/// Pushes inbox entries to the APNs device tokens of their recipients.
///
/// Each APNs token has a position in its user's inbox, as a web courier token has. A pass
/// claims the tokens whose user has entries past their position (a lease, so that several
/// instances on one database do not push the same entries), pushes those entries in order and
/// moves the position past each one APNs accepted. Entries that came from the token's own
/// device are passed over: a device is not told of its own change.
///
/// A push APNs cannot take now is tried again with exponential back-off (one second, doubling,
/// at most ten minutes) from the same entry: delivery is at-least-once and in order. Entries
/// leave the inbox at its retention, and with them the pushes still owed. A token APNs calls
/// invalid is deleted; a push it refuses for what it is, is skipped.
public final class APNsDelivery: Sendable {
    let tokens: any PushTokenStore
    let notifications: any NotificationStore
    let sender: any APNsSender
    let wake: ChangeSignal
    let clock: any NimbusClock
    let inboxRetention: Duration
    let pollInterval: Duration
    let logger: Logger

    /// Tokens claimed per pass, and pushed at the same time.
    static let tokensPerPass = 64
    /// Entries read per inbox page.
    static let entriesPerPage = 50

    /// Creates the delivery.
    /// - Parameters:
    ///   - tokens: Where APNs tokens and their positions are kept.
    ///   - notifications: The inboxes.
    ///   - sender: What talks to APNs.
    ///   - wake: Fired when entries were written (``NotificationHub/written``).
    ///   - clock: The clock it reads the time from; tests pass one they move by hand.
    ///   - inboxRetention: How long entries stay in the inbox: pushes expire with them.
    ///   - pollInterval: How often to look for due tokens without a wake-up (back-offs that
    ///     ran out, another instance's entries it did not hear of).
    ///   - logger: For failures and invalid tokens.
    public init(
        tokens: any PushTokenStore,
        notifications: any NotificationStore,
        sender: any APNsSender,
        wake: ChangeSignal,
        clock: any NimbusClock,
        inboxRetention: Duration,
        pollInterval: Duration = .seconds(1),
        logger: Logger
    ) {
        self.tokens = tokens
        self.notifications = notifications
        self.sender = sender
        self.wake = wake
        self.clock = clock
        self.inboxRetention = inboxRetention
        self.pollInterval = pollInterval
        self.logger = logger
    }

    /// Pushes whenever entries are written (and every poll interval) until cancelled.
    public func run() async {
        while !Task.isCancelled {
            do {
                try await pushDue()
            } catch {
                logger.warning("Pushing notifications to APNs failed", metadata: [LogKey.error: "\(error)"])
                await StoreFailureWait.wait()
                continue
            }
            await wake.wait(atMost: pollInterval, on: clock)
        }
    }

    /// Pushes everything due now; returns how many pushes APNs accepted.
    @discardableResult
    public func pushDue() async throws -> Int {
        try await PushTokenDelivery.deliverDue(.apns, tokens: tokens, clock: clock, perPass: Self.tokensPerPass) { token in
            await self.push(to: token)
        }
    }

    /// Pushes one token's entries past its position; returns how many APNs accepted.
    private func push(to token: PushToken) async -> Int {
        guard let apnsToken = token.apnsToken else {
            try? await tokens.deletePushToken(token.key)
            return 0
        }
        var position = token.deliveredThrough
        var failures = token.failures
        var nextAttempt: Int64 = 0
        var accepted = 0
        do {
            paging: while true {
                let entries = try await notifications.inbox(
                    of: token.userRecordName,
                    in: token.container,
                    after: position,
                    limit: Self.entriesPerPage
                )
                for entry in entries {
                    if let origin = entry.originDeviceID, origin == token.deviceID {
                        position = entry.sequence
                        continue
                    }
                    let expiration = (entry.createdAt / 1000) + inboxRetention.components.seconds
                    let push = APNsPush(entry: entry, token: token, apnsToken: apnsToken, expiration: expiration)
                    switch await sender.send(push) {
                    case .delivered:
                        position = entry.sequence
                        failures = 0
                        accepted += 1
                    case .rejected(let reason):
                        logger.warning(
                            "APNs refused a push; it is skipped",
                            metadata: [LogKey.reason: "\(reason)", LogKey.notification: "\(entry.notificationID)"]
                        )
                        position = entry.sequence
                    case .tokenInvalid(let reason):
                        logger.info("APNs says a device token is no longer valid; it is removed", metadata: [LogKey.reason: "\(reason)"])
                        try await tokens.deletePushToken(token.key)
                        return accepted
                    case .retryLater(let reason, let retryAfter):
                        failures += 1
                        nextAttempt = clock.millisecondsSince1970 + PushTokenDelivery.backoff(afterFailures: failures, retryAfter: retryAfter)
                        logger.notice(
                            "APNs could not take a push; it is tried again later",
                            metadata: [LogKey.reason: "\(reason)", LogKey.failures: "\(failures)"]
                        )
                        break paging
                    }
                }
                if entries.count < Self.entriesPerPage { break }
            }
        } catch {
            // The store failed: the claim runs out and the next pass starts from the position
            // saved below (or, should that fail too, from the last one saved).
            logger.warning("Reading an inbox for APNs failed", metadata: [LogKey.error: "\(error)"])
            nextAttempt = clock.millisecondsSince1970 + PushTokenDelivery.backoff(afterFailures: failures + 1, retryAfter: nil)
        }
        do {
            try await tokens.releasePushToken(token.key, deliveredThrough: position, failures: failures, nextAttemptAt: nextAttempt)
        } catch {
            logger.warning("Saving an APNs token's position failed", metadata: [LogKey.error: "\(error)"])
        }
        return accepted
    }
}
