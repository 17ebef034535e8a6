//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Logging
import NimbusEngine
import NimbusModel
public import ServiceLifecycle

extension NimbusInstance {
    /// The instance's long-lived work, each a service of one group, in start order (they stop in
    /// reverse): the store, then notification dispatch and its relay between instances, APNs and
    /// webhook delivery, the pruners of inboxes, expired credentials and tombstones, and the
    /// collector of assets no record references.
    ///
    /// `nimbus serve` runs them with the HTTP server in the application's group; a test server
    /// without a listener runs them with ``withServices(_:)``.
    public var services: [any Service] {
        var services: [any Service] = [
            StoreService(instance: self),
            BackgroundLoop("NotificationDispatcher") { await dispatcher.run() },
            BackgroundLoop("NotificationRelay") { await dispatcher.relayAnnouncements() },
            BackgroundLoop("WebhookDelivery") { await webhooks.run() },
            BackgroundLoop("MailOutbox") { await mailOutbox.run() },
            BackgroundLoop.every(.seconds(3600), on: clock, "InboxPruner") { await pruneLogged("notification inboxes", pruneInboxes) },
            BackgroundLoop.every(.seconds(3600), on: clock, "AssetCollector") { await collectAssetsLogged() },
            BackgroundLoop.every(.seconds(3600), on: clock, "CredentialPruner") { await pruneLogged("expired credentials", pruneExpiredCredentials) },
        ]
        if let apns { services.append(BackgroundLoop("APNsDelivery") { await apns.run() }) }
        if let retention = configuration.tombstoneRetention {
            services.append(
                BackgroundLoop.every(.seconds(3600), on: clock, "TombstonePruner") {
                    await pruneLogged("tombstones") { try await database.pruneTombstones(olderThan: retention) }
                }
            )
        }
        return services
    }

    /// Runs `body` while the instance's ``services`` run, then shuts them down (closing the store).
    public func withServices<Result: Sendable>(_ body: () async throws -> Result) async throws -> Result {
        try await withServiceGroup(services, body)
    }

    /// Runs `body` while the store runs, without notification delivery or pruning (what an
    /// admin command needs), then closes the store.
    public func withStore<Result: Sendable>(_ body: () async throws -> Result) async throws -> Result {
        try await withServiceGroup([StoreService(instance: self)], body)
    }

    private func withServiceGroup<Result: Sendable>(_ services: [any Service], _ body: () async throws -> Result)
        async throws -> Result
    {
        let group = ServiceGroup(configuration: .init(services: services.map { .init(service: $0) }, logger: logger))
        return try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            let result: Result
            do {
                result = try await body()
            } catch {
                await group.triggerGracefulShutdown()
                try? await tasks.waitForAll()
                throw error
            }
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
            return result
        }
    }

    private func collectAssetsLogged() async {
        do {
            _ = try await assets.collect()
        } catch {
            logger.warning("Collecting unreferenced assets failed", metadata: [LogKey.error: "\(error)"])
        }
    }

    /// Runs one of the pruners; logs how many rows it removed, if any, or why it failed.
    private func pruneLogged(_ what: String, _ prune: () async throws -> Int) async {
        do {
            let removed = try await prune()
            if removed > 0 { logger.info("Pruned \(what)", metadata: [LogKey.count: "\(removed)"]) }
        } catch {
            logger.warning("Pruning \(what) failed", metadata: [LogKey.error: "\(error)"])
        }
    }
}
