//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusModel
import NimbusWire
import Synchronization

/// A notification as every Nimbus channel delivers it.
public struct ReceivedNotification: Sendable, Hashable {
    /// The notification's stable ID (`ck.nid`): the same on every channel and every retry.
    public var id: String
    /// Its place in the user's inbox: 1, 2, 3, ... without gaps.
    public var sequence: Int64
    /// The subscription that fired.
    public var subscriptionID: String?
    /// The zone the change happened in, when the notification names one.
    public var zoneName: String?
    /// The records it reports changed (at most 50; `isPruned` when there were more).
    public var recordNames: [String]
    /// Whether the list of records was cut.
    public var isPruned: Bool
    /// `visible`, `silent` or `none` as the subscription's rules decided.
    public var decision: String?
    /// The zone's change counter after the change (`ck.nimbus.zoneCounter`): notifications of
    /// one zone are ordered by it, and one at or below a counter already handled is old news.
    public var zoneCounter: Int64?
    /// The whole message, `{"id", "sequence", "ck", "aps"}`, as JSON text.
    public var json: String

    /// Reads one message of the WebSocket stream or the inbox.
    public init(json text: String) throws {
        let members = try JSONParser.parse(text).object(at: "notification")
        id = try members.required("id", at: "notification").string(at: "id")
        sequence = try members.required("sequence", at: "notification").integer(at: "sequence")
        let ck = try members.optional("ck")?.object(at: "ck") ?? [:]
        var subscriptionID: String?
        var zoneName: String?
        for key in ["qry", "fet", "met"] {
            guard case .object(let body)? = ck[key] else { continue }
            if case .string(let sid)? = body["sid"] { subscriptionID = sid }
            if case .string(let zone)? = body["zid"] { zoneName = zone }
        }
        self.subscriptionID = subscriptionID
        self.zoneName = zoneName
        isPruned = ck["p"] == .bool(true)
        var names: [String] = []
        var decision: String?
        var zoneCounter: Int64?
        if case .object(let nimbus)? = ck["nimbus"] {
            if case .integer(let counter)? = nimbus["zoneCounter"] { zoneCounter = counter }
            if case .array(let changes)? = nimbus["changes"] {
                for case .object(let change) in changes { if case .string(let name)? = change["rid"] { names.append(name) } }
            }
            if case .string(let text)? = nimbus["decision"] { decision = text }
        }
        recordNames = names
        self.decision = decision
        self.zoneCounter = zoneCounter
        json = text
    }
}

/// A page of the user's notification inbox.
public struct NotificationInboxPage: Sendable {
    /// The notifications after the requested sequence, oldest first.
    public var notifications: [ReceivedNotification]
    /// The user's latest sequence number: a gap between it and the last notification received
    /// means entries that expired from the inbox (sync your zones from your tokens).
    public var lastSequence: Int64
    /// Whether more notifications follow this page.
    public var moreComing: Bool
}

extension Container {
    /// Reads the signed-in user's notification inbox after `sequence` (Nimbus extension): what
    /// a device missed while it was away.
    public func notificationInbox(after sequence: Int64 = 0, limit: Int = 100) async throws -> NotificationInboxPage {
        let request = NotificationInboxRequest(after: sequence, limit: limit)
        let response = try await perform(path: "\(containerPath)/notifications/inbox", body: request.jsonBody, idempotent: true)
        let members = try response.object(at: "response")
        var notifications: [ReceivedNotification] = []
        for item in try members.optional("notifications")?.array(at: "notifications") ?? [] {
            var text = JSONWriter()
            text.value(item)
            notifications.append(try ReceivedNotification(json: String(decoding: text.bytes, as: UTF8.self)))
        }
        return NotificationInboxPage(
            notifications: notifications,
            lastSequence: try members.optional("lastSequence")?.integer(at: "lastSequence") ?? 0,
            moreComing: members.optional("moreComing") == .bool(true)
        )
    }

    /// The URL of the user's WebSocket notification stream, with the container's credentials,
    /// for any WebSocket client (`URLSessionWebSocketTask` on Apple platforms).
    /// - Parameters:
    ///   - sequence: Replay the inbox after this sequence first; `nil` starts with the next one.
    ///   - deviceID: This device, whose own changes are then not sent back to it.
    /// - Returns: `nil` with server-to-server credentials, which have no user to notify.
    public func notificationStreamURL(after sequence: Int64? = nil, deviceID: String? = nil) -> String? {
        guard let token = webAuthToken, case .apiToken(let apiToken, _) = authentication.withLock({ $0 }) else { return nil }
        var url = serverURL.replacingPrefix("http", with: "ws") + "\(containerPath)/notifications/ws"
        url += "?ckAPIToken=\(Self.escaped(apiToken))&ckWebAuthToken=\(Self.escaped(token))"
        if let sequence { url += "&after=\(sequence)" }
        if let deviceID { url += "&deviceID=\(Self.escaped(deviceID))" }
        return url
    }
}

extension String {
    /// `https://` becomes `wss://`, `http://` `ws://`.
    fileprivate func replacingPrefix(_ prefix: String, with replacement: String) -> String {
        hasPrefix(prefix) ? replacement + dropFirst(prefix.count) : self
    }
}
