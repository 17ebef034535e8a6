//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

/// When the SDK sends a request again by itself.
///
/// - A `TRY_AGAIN_LATER` or `THROTTLED` answer means the server did not do the work. With a
///   `retryAfter` the request is sent again after it, as given; one longer than
///   ``maximumDelay`` ends the retries, so the caller gets the error, with its
///   ``NimbusModel/NimbusError/retryAfter``, to try again when it suits rather than sooner than
///   the server asked. Without a `retryAfter` (the protocol's "do not retry") only a request
///   that is safe to send twice goes again, after a back-off.
/// - A request that got no answer (a dropped connection, a timeout, or a proxy's 502, 503 or 504
///   without a CloudKit error) may or may not have been done: only a request that is safe to
///   send twice (a read, or a write that means the same the second time) goes again.
/// - A proxy's 429 turned the request away before the server: it goes again after the proxy's
///   `Retry-After`. A proxy's 413 is `.limitExceeded`, and batches are split.
///
/// Back-off grows exponentially from ``initialDelay`` with random jitter, so clients that failed
/// together do not return together. Every other error reaches the caller at once: retrying a
/// `CONFLICT` or a `BAD_REQUEST` cannot succeed.
public struct RetryPolicy: Sendable, Hashable {
    /// How many times a request is sent at most, the first time included.
    public var maximumAttempts: Int
    /// The wait before the second attempt when the server gives no `retryAfter`.
    public var initialDelay: Duration
    /// The longest wait between two attempts. A server asking for a longer one gets its error
    /// passed to the caller instead of an early retry.
    public var maximumDelay: Duration

    /// Creates a policy.
    public init(maximumAttempts: Int = 5, initialDelay: Duration = .milliseconds(250), maximumDelay: Duration = .seconds(60)) {
        self.maximumAttempts = max(1, maximumAttempts)
        self.initialDelay = initialDelay
        self.maximumDelay = maximumDelay
    }

    /// Sends each request once.
    public static let never = RetryPolicy(maximumAttempts: 1)

    /// The wait before attempt `attempt + 1`, after `attempt` failed attempts, or `nil` to give up.
    /// - Parameter retryAfter: the server's wait, honoured as given; `nil` for back-off.
    func delay(afterAttempt attempt: Int, retryAfter: Duration?) -> Duration? {
        guard attempt < maximumAttempts else { return nil }
        if let retryAfter { return retryAfter <= maximumDelay ? retryAfter : nil }
        let exponential = initialDelay * (1 << min(attempt - 1, 16))
        let jittered = exponential * Double.random(in: 0.5...1.0)
        return min(jittered, maximumDelay)
    }
}
