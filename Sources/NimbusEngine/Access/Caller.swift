//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import NimbusModel

/// Who is making a request, as authentication established it.
///
/// The engine decides what a caller may do from this alone; it never sees how the caller
/// authenticated beyond ``Kind``.
public struct Caller: Sendable, Hashable {
    /// How the caller authenticated.
    public enum Kind: Sendable, Hashable {
        /// An API token with no signed-in user: may read the public database.
        case anonymous
        /// A signed-in user (API token plus web auth token).
        case user
        /// A server-to-server key, acting as the user who registered it, on the public database only.
        case serverKey
    }

    /// The container identifier the request addresses, such as `iCloud.com.example.App`.
    public var container: String
    /// The container environment the request addresses (development or production).
    public var environment: Environment
    /// How the caller authenticated.
    public var kind: Kind
    /// The acting user; `nil` for anonymous callers.
    public var userRecordName: String?
    /// For a server-to-server key: its key ID.
    public var keyID: String?
    /// The device the request came from, when the client says (`X-Nimbus-Device-ID`): its own
    /// changes are not notified back to it.
    public var deviceID: String?

    /// Creates a caller.
    public init(
        container: String,
        environment: Environment,
        kind: Kind,
        userRecordName: String?,
        keyID: String? = nil,
        deviceID: String? = nil
    ) {
        self.container = container
        self.environment = environment
        self.kind = kind
        self.userRecordName = userRecordName
        self.keyID = keyID
        self.deviceID = deviceID
    }

    /// Whose subscriptions, inbox and push tokens the caller's are: a signed-in user's own, or
    /// a server-to-server key's (apart from the user who registered the key, whose devices
    /// must not get the key's notifications); `nil` for anonymous callers.
    public var notificationRecipient: String? {
        switch kind {
        case .user: userRecordName
        case .serverKey: keyID.map(Self.recipient(ofKey:))
        case .anonymous: nil
        }
    }

    /// The inbox name of a server-to-server key's notifications. No user record name has this
    /// form (theirs begin with `_`).
    public static func recipient(ofKey keyID: String) -> String { "key:" + keyID }
}

/// A caller addressing one of the container's databases.
public struct DatabaseAccess: Sendable, Hashable {
    /// Who is making the request.
    public var caller: Caller
    /// Which database the request addresses: public, private or shared.
    public var scope: DatabaseScope
    /// An operator's change to the public database from the console, which audits it: the rule
    /// that only a record's creator may change it does not apply. Never set for a request a
    /// client made.
    public var isModeration: Bool

    /// Creates a database access.
    public init(caller: Caller, scope: DatabaseScope, isModeration: Bool = false) {
        self.caller = caller
        self.scope = scope
        self.isModeration = isModeration
    }
}
