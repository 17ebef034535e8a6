//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusStore
import ServiceLifecycle

/// A long-lived loop of the server run as a service of its group: it runs until the group
/// shuts down, which cancels it.
///
/// The loops themselves (the notification dispatcher, APNs and webhook delivery, the pruners)
/// live in the engine, which knows nothing of services; this gives each its name in the group.
struct BackgroundLoop: Service, CustomStringConvertible {
    /// The service lifecycle logs services by their descriptions; a name is all it needs.
    let description: String
    let loop: @Sendable () async -> Void

    init(_ name: String, _ loop: @escaping @Sendable () async -> Void) {
        description = name
        self.loop = loop
    }

    func run() async throws {
        // Shutdown cancels the loop; that is the normal way out, not a failure.
        await cancelWhenGracefulShutdown { await loop() }
        // A loop with nothing to do ends at once (one SQLite instance has no other to relay
        // from); its service lasts until shutdown all the same, as the group expects.
        try? await gracefulShutdown()
    }
}

extension BackgroundLoop {
    /// Runs `body` every `interval` on `clock`, from one interval after the start, until cancelled.
    static func every(
        _ interval: Duration,
        on clock: any NimbusClock,
        _ name: String,
        _ body: @escaping @Sendable () async -> Void
    ) -> BackgroundLoop {
        BackgroundLoop(name) {
            while !Task.isCancelled {
                guard (try? await clock.sleep(for: interval)) != nil else { return }
                await body()
            }
        }
    }
}
