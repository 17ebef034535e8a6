//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusEngine
import NimbusModel
import NimbusSQL
public import NimbusStore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension NimbusInstance {
    /// Sends a server-to-server key's notifications (those of its subscriptions in the public
    /// database) to a URL, from the key's latest notification on: a signed `POST` of
    /// `{"notifications": [...]}`, each as the inbox returns it, retried with back-off until the
    /// receiver answers 2xx. Configuring another URL replaces the webhook.
    /// - Parameters:
    ///   - url: `https://...`; plain `http` only on the loopback interface, for development.
    /// - Returns: the signing secret, in hex, to verify `X-Nimbus-Signature` with (shown once:
    ///   the server derives it again when it signs, and stores nothing of it).
    /// - Throws: `.badRequest` for a URL that is not HTTPS; `.unknownItem` for a key that is not
    ///   the container's.
    public func configureWebhook(keyID: String, container: ContainerEnvironment, url: String) async throws -> String {
        try Self.checkWebhookURL(url)
        guard let key = try await store.serverKey(id: keyID), key.container == container.container else {
            throw NimbusError(.unknownItem, "no server-to-server key \(keyID) in \(container.container)")
        }
        let recipient = Caller.recipient(ofKey: keyID)
        try await store.savePushToken(
            PushToken(
                key: PushToken.webhookKey(keyID: keyID, in: container),
                kind: .webhook,
                container: container,
                userRecordName: recipient,
                apnsEnvironment: "",
                deliveredThrough: try await dispatcher.lastSequence(of: recipient, in: container),
                apnsToken: url
            )
        )
        return WebhookSecret.derive(serverKey: tokenKey, keyID: keyID, url: url)
    }

    /// Stops sending a key's notifications to its webhook; returns whether it had one.
    @discardableResult
    public func removeWebhook(keyID: String, container: ContainerEnvironment) async throws -> Bool {
        let key = PushToken.webhookKey(keyID: keyID, in: container)
        guard try await store.pushToken(key) != nil else { return false }
        try await store.deletePushToken(key)
        return true
    }

    /// Webhooks carry notifications and their signatures: over HTTPS, except to this machine.
    static func checkWebhookURL(_ text: String) throws(NimbusError) {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased(), !host.isEmpty else {
            throw NimbusError.badRequest("the webhook URL is not a URL: \(text)")
        }
        // A loopback address itself, not a name that begins like one (127.example.com).
        let octets = host.split(separator: ".", omittingEmptySubsequences: false)
        let isLoopbackIPv4 = octets.count == 4 && octets[0] == "127" && octets.allSatisfy { UInt8($0) != nil }
        let isLoopback = host == "localhost" || host == "::1" || host == "[::1]" || isLoopbackIPv4
        guard scheme == "https" || (scheme == "http" && isLoopback) else {
            throw NimbusError.badRequest("a webhook URL must be https:// (http:// only on this machine, for development)")
        }
    }
}
