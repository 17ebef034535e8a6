//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

/// When the SDK sends a request again by itself.
///
/// A request is retried when no response arrived (a dropped connection, a timeout) and when the
/// server answers `TRY_AGAIN_LATER` or `THROTTLED`. The wait is the server's `retryAfter` when it
/// gives one, and otherwise grows exponentially from ``initialDelay`` with random jitter, so
/// clients that failed together do not return together. Every other error reaches the caller at
/// once: retrying a `CONFLICT` or a `BAD_REQUEST` cannot succeed.
public struct RetryPolicy: Sendable, Hashable {
    /// How many times a request is sent at most, the first time included.
    public var maximumAttempts: Int
    /// The wait before the second attempt when the server gives no `retryAfter`.
    public var initialDelay: Duration
    /// The longest wait between two attempts, whatever the server asks for.
    public var maximumDelay: Duration

    /// Creates a policy.
    public init(maximumAttempts: Int = 5, initialDelay: Duration = .milliseconds(250), maximumDelay: Duration = .seconds(60)) {
        self.maximumAttempts = max(1, maximumAttempts)
        self.initialDelay = initialDelay
        self.maximumDelay = maximumDelay
    }

    /// Sends each request once.
    public static let never = RetryPolicy(maximumAttempts: 1)

    /// The wait before attempt `attempt + 1`, after `attempt` failed attempts.
    func delay(afterAttempt attempt: Int, retryAfter: Duration?) -> Duration {
        if let retryAfter { return min(retryAfter, maximumDelay) }
        let exponential = initialDelay * (1 << min(attempt - 1, 16))
        let jittered = exponential * Double.random(in: 0.5...1.0)
        return min(jittered, maximumDelay)
    }
}
