//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import Logging
import NimbusEngine
import NimbusModel
import NimbusStore
import ServiceLifecycle

/// Runs the notification dispatcher and the APNs pushes, and now and then empties old inbox
/// entries, until graceful shutdown (before the store closes). Its first pass handles what a
/// previous run left in the outbox.
struct NotificationDelivery: Service, CustomStringConvertible {
    /// The service lifecycle logs services by their descriptions; a name is all it needs.
    var description: String { "NotificationDelivery" }

    let instance: NimbusInstance
    let logger: Logger

    func run() async throws {
        // The work runs in a task of its own: at shutdown it is cancelled, and the service
        // returns within a few seconds even if some part of it does not notice.
        let work = Task { await NimbusServer.deliverNotifications(instance, logger: logger) }
        try? await gracefulShutdown()
        work.cancel()
        if await !waitForEnd(of: work, atMost: .seconds(5)) {
            logger.warning("Notification delivery did not stop within 5 seconds of shutdown; closing the store regardless")
        }
    }
}

extension NimbusServer {
    /// Delivers notifications until cancelled: the dispatcher, the relay of other instances'
    /// announcements, APNs when configured, webhooks, and the hourly pruning of inboxes. A server runs it
    /// as a service; in-process test servers run it in a task of their own.
    public static func deliverNotifications(_ instance: NimbusInstance, logger: Logger) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await instance.dispatcher.run() }
            group.addTask { await instance.dispatcher.relayAnnouncements() }
            if let apns = instance.apns { group.addTask { await apns.run() } }
            group.addTask { await instance.webhooks.run() }
            group.addTask {
                while !Task.isCancelled {
                    guard (try? await Task.sleep(for: .seconds(3600))) != nil else { return }
                    do {
                        let removed = try await instance.pruneInboxes()
                        if removed > 0 { logger.info("Pruned notification inboxes", metadata: [LogKey.count: "\(removed)"]) }
                    } catch {
                        logger.warning("Pruning notification inboxes failed", metadata: [LogKey.error: "\(error)"])
                    }
                }
            }
        }
    }
}
