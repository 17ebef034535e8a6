//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusModel
import NimbusStore

/// One push for Apple's push service: where it goes, what it carries, and the headers APNs
/// wants with it.
public struct APNsPush: Sendable, Hashable {
    /// How the device treats the push (`apns-push-type`).
    public enum PushType: String, Sendable, Hashable {
        /// Shown to the user: an alert, a sound or a badge.
        case alert
        /// Only wakes the app (`content-available`).
        case background
    }

    /// The device token, in hexadecimal.
    public var deviceToken: String
    /// `development` (APNs' sandbox) or `production`, as the device registered it.
    public var apnsEnvironment: String
    /// The container whose notification this is; the topic (the app's bundle ID) follows from it.
    public var container: String
    /// The notification ID, sent as `apns-id` so APNs' reports name it.
    public var notificationID: String
    /// The JSON body: `aps` and `ck`.
    public var payload: [UInt8]
    /// Alert or background.
    public var pushType: PushType
    /// `apns-collapse-id`: the device keeps only the latest push of one ID.
    public var collapseID: String?
    /// `apns-expiration`, in seconds since 1970: APNs stops trying after it.
    public var expiration: Int64

    /// `apns-priority`: 10 (at once) for an alert; 5 (when it suits the device's power) for a
    /// background push, as APNs requires.
    public var priority: Int { pushType == .alert ? 10 : 5 }

    /// Creates a push.
    public init(
        deviceToken: String,
        apnsEnvironment: String,
        container: String,
        notificationID: String,
        payload: [UInt8],
        pushType: PushType,
        collapseID: String?,
        expiration: Int64
    ) {
        self.deviceToken = deviceToken
        self.apnsEnvironment = apnsEnvironment
        self.container = container
        self.notificationID = notificationID
        self.payload = payload
        self.pushType = pushType
        self.collapseID = collapseID
        self.expiration = expiration
    }

    /// The largest body APNs accepts for a notification.
    public static let maximumPayloadSize = 4_096
    /// The longest `apns-collapse-id` APNs accepts, in bytes.
    public static let maximumCollapseIDSize = 64

    /// The push of an inbox entry to a device token.
    ///
    /// The push type follows the payload: an `aps` with an alert, a sound or a badge is an alert
    /// push; anything else only wakes the app. A payload over APNs' 4 KB loses Nimbus's own
    /// details (`ck.nimbus`: the changes and the rules' reasons) and says so with `ck.p`, as
    /// CloudKit marks a pruned payload; the app fetches the changes.
    init(entry: InboxEntry, token: PushToken, apnsToken: String, expiration: Int64) {
        let parsed = try? JSONParser.parse(entry.payload)
        var pushType = PushType.background
        if case .object(let members)? = parsed, case .object(let aps)? = members["aps"],
            aps["alert"] != nil || aps["sound"] != nil || aps["badge"] != nil
        {
            pushType = .alert
        }
        var payload = entry.payload
        if payload.count > Self.maximumPayloadSize, case .object(var members)? = parsed, case .object(var ck)? = members["ck"] {
            ck["nimbus"] = nil
            ck["p"] = .bool(true)
            members["ck"] = .object(ck)
            var writer = JSONWriter()
            writer.value(.object(members))
            payload = writer.bytes
        }
        self.init(
            deviceToken: apnsToken,
            apnsEnvironment: token.apnsEnvironment,
            container: entry.container.container,
            notificationID: entry.notificationID,
            payload: payload,
            pushType: pushType,
            collapseID: entry.collapseID.flatMap { $0.utf8.count <= Self.maximumCollapseIDSize ? $0 : nil },
            expiration: expiration
        )
    }
}

/// What became of a push.
public enum APNsOutcome: Sendable, Hashable {
    /// APNs accepted it.
    case delivered
    /// APNs says the device token is no longer valid (`410`, `BadDeviceToken`): forget it.
    case tokenInvalid(reason: String)
    /// APNs refused this push for what it is (too large, a bad header): sending it again
    /// cannot help, so it is skipped.
    case rejected(reason: String)
    /// APNs could not take it now (unreachable, `429`, `5xx`, a provider token to renew): try
    /// again later, after `retryAfter` if APNs said.
    case retryLater(reason: String, retryAfter: Duration?)
}

/// Sends pushes to APNs. ``APNsDelivery`` decides what to send; the sender speaks HTTP/2.
public protocol APNsSender: Sendable {
    /// Sends one push and reports what APNs made of it; never throws: a failure is an outcome.
    func send(_ push: APNsPush) async -> APNsOutcome
}
