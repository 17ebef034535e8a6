//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import HummingbirdTesting
import NimbusTestSupport

extension HTTPFixture {
    /// Returns once every loop of the server that sleeps on its clock sleeps: the notification
    /// dispatcher, webhook delivery, the pruners of inboxes and expired credentials and the asset
    /// collector, and APNs delivery and the tombstone pruner when configured. Each has then finished the pass it was on, so what it would
    /// have sent, it has sent.
    func waitForIdleLoops() async {
        let configuration = instance.configuration
        await clock.waitForSleepers(5 + (configuration.apns == nil ? 0 : 1) + (configuration.tombstoneRetention == nil ? 0 : 1))
    }

    /// Sends a web courier poll and returns its answer, moving the server's clock past the
    /// poll's timeout once the poll waits on it: a poll that finds nothing answers empty then.
    ///
    /// The poll's wait is told from the server's loops' by its deadline: give a timeout none of
    /// their intervals has (they poll every one or two seconds, and prune every hour).
    func pollPastTimeout(_ path: String, timeout: Int, client: any TestClientProtocol) async throws -> TestResponse {
        let deadline = clock.now.advanced(by: .seconds(timeout))
        async let response = client.send(.get, "\(path)?timeout=\(timeout)")
        await clock.waitForSleeper(until: deadline)
        clock.advance(by: .seconds(timeout))
        return try await response
    }
}
