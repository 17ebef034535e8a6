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
    let publicAddress: PublicAddress
    let logger: Logger

    /// Entries read from the inbox per query while replaying.
    static let replayPage = 200

    /// What to do with an upgrade request.
    public enum Decision: Sendable {
        /// Upgrade, with these response headers and this handler.
        case upgrade(ShouldUpgradeResult<WebSocketDataHandler<HTTP1WebSocketUpgradeChannel.Context>>)
        /// Answer with this whole HTTP/1.1 response (a CloudKit error dictionary, as the same
        /// URL gets without `Upgrade`) and close the connection.
        case refuse(http1Response: [UInt8])
    }

    /// Creates the channel.
    /// - Parameter publicAddress: where sign-in pages are, for the `redirectURL` of a `421`.
    public init(accounts: AccountService, dispatcher: NotificationDispatcher, publicAddress: PublicAddress, logger: Logger) {
        self.accounts = accounts
        self.dispatcher = dispatcher
        self.publicAddress = publicAddress
        self.logger = logger
    }

    /// Decides an upgrade request: upgrades an authenticated request for the notification
    /// stream, and refuses anything else with the error the same URL gets without `Upgrade`
    /// (`421` with a `redirectURL`, `401`, a `400` naming a bad `after`, a `503` when the
    /// database cannot answer), so a client can tell "sign in again" from "bad request".
    public func decide(_ request: HTTPRequest) async -> Decision {
        do throws(NimbusError) {
            return .upgrade(try await upgrade(request))
        } catch {
            var answer = CloudKitErrorResponse(error: error, requestID: RequestIDGenerator.shared.next())
            if error.code == .authenticationRequired {
                answer.redirectURL = SignInPage.url(forRequestPath: request.path ?? "", base: publicAddress.value)
            }
            return .refuse(http1Response: answer.http1Bytes())
        }
    }

    private func upgrade(_ request: HTTPRequest) async throws(NimbusError) -> ShouldUpgradeResult<
        WebSocketDataHandler<HTTP1WebSocketUpgradeChannel.Context>
    > {
        guard let target = request.path.flatMap(Self.target) else {
            throw .badRequest("only the notification stream, /database/1/{container}/{environment}/notifications/ws, is a WebSocket")
        }
        if target.hasInvalidAfter, let after = target.rawAfter {
            throw .badRequest("after must be a sequence number (0 or more), not '\(after.prefix(32))'")
        }
        let (authentication, user) = try await accounts.authenticateNotifications(
            apiToken: target.apiToken,
            webAuthToken: target.webAuthToken,
            route: target.route
        )
        var headers = HTTPFields()
        if let token = authentication.webAuthToken { headers[HeaderName.webAuthToken] = token }
        let container = ContainerEnvironment(container: target.route.container, environment: target.route.environment)
        // "From now" is fixed before the upgrade is answered: a notification the client causes
        // once connected is after it.
        let start: Int64
        if let after = target.after {
            start = after
        } else {
            start = try await dispatcher.lastSequence(of: user, in: container)
        }
        let session = Session(dispatcher: dispatcher, user: user, container: container, deviceID: target.deviceID, start: start)
        return .upgrade(headers) { inbound, outbound, _ in try await session.run(inbound: inbound, outbound: outbound) }
    }

    // MARK: - Private

    struct Target {
        var route: NotificationsRoute
        var apiToken: String?
        var webAuthToken: String?
        var deviceID: String?
        var after: Int64?
        var rawAfter: Substring?
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
            rawAfter: query["after"],
            hasInvalidAfter: query["after"].map { Int64($0).map { $0 < 0 } ?? true } ?? false
        )
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
