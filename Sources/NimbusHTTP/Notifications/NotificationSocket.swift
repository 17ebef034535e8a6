//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import HTTPTypes
import HummingbirdCore
public import HummingbirdWebSocket
public import Logging
public import NimbusEngine
import NimbusModel
import NimbusStore

/// The WebSocket notification channel: one connection per device, authenticated like any
/// request (`ckAPIToken`, `ckWebAuthToken`), with optional `deviceID` and `after`.
///
/// Every text message is one notification, `{"id", "sequence", "ck": {...}}` (with `aps` where
/// an APNs payload would have one), in sequence order without gaps. With `after=N` the
/// connection first replays the inbox after N, so a client that reconnects misses nothing
/// the inbox still holds; without it, the stream starts with the next notification.
/// Notifications of changes made by the connection's own `deviceID` are skipped.
public struct NotificationSocket: Sendable {
    let accounts: AccountService
    let dispatcher: NotificationDispatcher
    let logger: Logger

    /// Entries read from the inbox per query while replaying.
    static let replayPage = 200

    /// Creates the channel.
    public init(accounts: AccountService, dispatcher: NotificationDispatcher, logger: Logger) {
        self.accounts = accounts
        self.dispatcher = dispatcher
        self.logger = logger
    }

    /// Decides an upgrade request: upgrades an authenticated request for the notification
    /// stream; anything else (including a failed authentication) goes on to the HTTP
    /// responder, which answers it with the CloudKit-shaped error.
    public func shouldUpgrade(_ request: HTTPRequest) async -> ShouldUpgradeResult<WebSocketDataHandler<HTTP1WebSocketUpgradeChannel.Context>> {
        // A target with a bad `after` is answered by the HTTP responder, with the reason.
        guard let target = request.path.flatMap(Self.target), !target.hasInvalidAfter else { return .dontUpgrade }
        guard let authentication = try? await authenticate(target) else { return .dontUpgrade }
        guard let user = authentication.caller.userRecordName, authentication.caller.kind == .user else { return .dontUpgrade }
        var headers = HTTPFields()
        if let token = authentication.webAuthToken { headers[HeaderName.webAuthToken] = token }
        let container = ContainerEnvironment(container: target.route.container, environment: target.route.environment)
        // "From now" is fixed before the upgrade is answered: a notification the client causes
        // once connected is after it.
        let start: Int64
        if let after = target.after {
            start = after
        } else {
            guard let last = try? await dispatcher.lastSequence(of: user, in: container) else { return .dontUpgrade }
            start = last
        }
        let session = Session(dispatcher: dispatcher, user: user, container: container, deviceID: target.deviceID, start: start)
        return .upgrade(headers) { inbound, outbound, _ in try await session.run(inbound: inbound, outbound: outbound) }
    }

    /// Authenticates a stream request that was not upgraded, for the HTTP responder's answer.
    func authenticate(path: String, query: String?) async throws(NimbusError) -> Authentication {
        guard let target = Self.target(path + (query.map { "?" + $0 } ?? "")) else { throw .badRequest("not the notification stream") }
        return try await authenticate(target)
    }

    // MARK: - Private

    struct Target {
        var route: NotificationsRoute
        var apiToken: String?
        var webAuthToken: String?
        var deviceID: String?
        var after: Int64?
        var hasInvalidAfter = false
    }

    static func target(_ pathAndQuery: String) -> Target? {
        let uri = URI(pathAndQuery)
        guard let route = NotificationsRoute.parse(uri.path), route.channel == .ws else { return nil }
        let query = uri.queryParameters
        return Target(
            route: route,
            apiToken: query["ckAPIToken"].map(String.init),
            webAuthToken: query["ckWebAuthToken"].map(String.init),
            deviceID: NotificationsRoute.deviceID(query["deviceID"]),
            after: query["after"].flatMap { Int64($0) }.flatMap { $0 >= 0 ? $0 : nil },
            hasInvalidAfter: query["after"].map { Int64($0).map { $0 < 0 } ?? true } ?? false
        )
    }

    private func authenticate(_ target: Target) async throws(NimbusError) -> Authentication {
        guard let apiToken = target.apiToken else {
            throw NimbusError(.authenticationFailed, "request has no credentials: pass ckAPIToken and ckWebAuthToken")
        }
        let authentication = try await accounts.authenticate(
            apiToken: apiToken,
            webAuthToken: target.webAuthToken,
            container: target.route.container,
            environment: target.route.environment
        )
        guard authentication.caller.kind == .user, authentication.caller.userRecordName != nil else {
            throw NimbusError(.authenticationRequired, "the notification stream needs a signed-in user (ckWebAuthToken)")
        }
        return authentication
    }
}

extension NotificationSocket {
    /// One connection's life: replay, then live entries, until the client closes.
    struct Session: Sendable {
        let dispatcher: NotificationDispatcher
        let user: String
        let container: ContainerEnvironment
        let deviceID: String?
        /// The last sequence the client has.
        let start: Int64

        func run(inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter) async throws {
            // Listen before reading the inbox, so nothing written in between is missed.
            let listener = dispatcher.hub.listen(to: user, in: container)
            defer { dispatcher.hub.stopListening(listener) }
            try await withThrowingTaskGroup(of: Void.self) { group in
                // The client's messages are not read for anything; the loop ends when it closes.
                group.addTask {
                    for try await _ in inbound {}
                }
                group.addTask {
                    var last = try await replay(after: start, to: outbound)
                    for await event in listener.events {
                        switch event {
                        case .entry(let entry):
                            guard entry.sequence > last else { continue }
                            // A gap means entries this connection was not handed: read them from the inbox.
                            if entry.sequence > last + 1 { last = try await replay(after: last, to: outbound) }
                            guard entry.sequence > last else { continue }
                            try await send(entry, to: outbound)
                            last = entry.sequence
                        case .written:
                            last = try await replay(after: last, to: outbound)
                        }
                    }
                }
                try await group.next()
                group.cancelAll()
            }
        }

        /// Sends the inbox after `sequence`; returns the last sequence sent.
        private func replay(after sequence: Int64, to outbound: WebSocketOutboundWriter) async throws -> Int64 {
            var last = sequence
            while true {
                let page = try await dispatcher.inbox(of: user, in: container, after: last, limit: NotificationSocket.replayPage)
                for entry in page {
                    try await send(entry, to: outbound)
                    last = entry.sequence
                }
                if page.count < NotificationSocket.replayPage { return last }
            }
        }

        private func send(_ entry: InboxEntry, to outbound: WebSocketOutboundWriter) async throws {
            if let deviceID, entry.originDeviceID == deviceID { return }
            try await outbound.write(.text(NotificationMessage.text(of: entry)))
        }
    }
}
