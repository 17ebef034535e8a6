//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusStore

/// What APNs pushes and webhook deliveries share: claiming due push tokens under a lease, in
/// passes, and backing off after failures.
///
/// A pass claims the tokens of a kind whose recipient has inbox entries past the token's
/// position (the lease keeps other instances off them), delivers to them concurrently, and
/// goes on while passes come back full.
enum PushTokenDelivery {
    /// How long a claim keeps other instances off a token: longer than a pass takes.
    static let lease: Int64 = 120_000
    /// The longest back-off, in milliseconds.
    static let maximumBackoff: Int64 = 600_000

    /// Delivers to every token of `kind` due now; returns the sum of what `deliver` returned.
    static func deliverDue(
        _ kind: PushToken.Kind,
        tokens: any PushTokenStore,
        clock: any NimbusClock,
        perPass: Int,
        deliver: @escaping @Sendable (PushToken) async -> Int
    ) async throws -> Int {
        var delivered = 0
        while !Task.isCancelled {
            let start = clock.millisecondsSince1970
            let due = try await tokens.claimDuePushTokens(kind, now: start, leaseUntil: start + lease, limit: perPass)
            guard !due.isEmpty else { break }
            delivered += await withTaskGroup(of: Int.self) { group in
                for token in due { group.addTask { await deliver(token) } }
                return await group.reduce(0, +)
            }
            if due.count < perPass { break }
        }
        return delivered
    }

    /// Milliseconds to wait after the `failures`-th failure in a row: one second, doubling, at
    /// most ten minutes; at least what the receiver asked for.
    static func backoff(afterFailures failures: Int, retryAfter: Duration?) -> Int64 {
        let doubled = Int64(1_000) << Int64(min(max(failures - 1, 0), 20))
        let asked = retryAfter.map { $0.components.seconds * 1000 + $0.components.attoseconds / 1_000_000_000_000_000 } ?? 0
        return max(min(doubled, maximumBackoff), asked)
    }
}
