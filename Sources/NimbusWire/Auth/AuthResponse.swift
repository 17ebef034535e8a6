//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

package import NimbusModel

/// An answer of `/auth/1/...`: a session, a code sent, the sessions list, or a plain status.
public enum AuthResponse: WireResponse, Hashable {
    /// `{"ckWebAuthToken", "userRecordName", "isNewUser", "anonymousCredential"?}`.
    case signedIn(webAuthToken: String, userRecordName: String, isNewUser: Bool, anonymousCredential: String?)
    /// `{"status": "CODE_SENT", "expiresAt"}`: the same whether the address has an account or not.
    case codeSent(expiresAt: Int64)
    /// `{"sessions": [{"sessionID", "device"?, "lastActiveAt", "expiresAt", "current"}]}`.
    case sessions([Session])
    /// `{"status": ...}`: `CHANGED`, `LINKED`, or `SIGNED_OUT` with `"ended"`.
    case status(String, ended: Int?)
    /// `{"status": "DELETED", "zonesDeleted", "sharesLeft"}`: the account is gone.
    case deleted(zonesDeleted: Int, sharesLeft: Int)
    /// `{"account": {"userRecordName", "name", "email"?, "anonymous", "discoverable", "providers"}}`.
    case account(Account)

    /// The caller's account, as `account` answers it.
    public struct Account: Sendable, Hashable {
        /// The user.
        public var userRecordName: String
        /// The name they go by.
        public var name: String
        /// Their email address, if they have one.
        public var email: String?
        /// Whether they have no way to sign in but this device's credential.
        public var isAnonymous: Bool
        /// Whether others find them by their addresses.
        public var isDiscoverable: Bool
        /// How they sign in: `email`, `anonymous`, or providers' issuers.
        public var providers: [String]

        /// Creates an account summary.
        public init(userRecordName: String, name: String, email: String?, isAnonymous: Bool, isDiscoverable: Bool, providers: [String]) {
            self.userRecordName = userRecordName
            self.name = name
            self.email = email
            self.isAnonymous = isAnonymous
            self.isDiscoverable = isDiscoverable
            self.providers = providers
        }
    }

    /// One signed-in device.
    public struct Session: Sendable, Hashable {
        /// Its ID, for `{"end": ...}`.
        public var sessionID: String
        /// What the client said it is.
        public var device: String?
        /// About when it was last used (ms since 1970).
        public var lastActiveAt: Int64
        /// When it ends unless used (ms since 1970).
        public var expiresAt: Int64
        /// Whether it is the session that asked.
        public var isCurrent: Bool

        /// Creates a session entry.
        public init(sessionID: String, device: String?, lastActiveAt: Int64, expiresAt: Int64, isCurrent: Bool) {
            self.sessionID = sessionID
            self.device = device
            self.lastActiveAt = lastActiveAt
            self.expiresAt = expiresAt
            self.isCurrent = isCurrent
        }
    }

    package func write(to writer: inout JSONWriter, options: WireOptions) {
        writer.beginObject()
        switch self {
        case .signedIn(let token, let user, let isNewUser, let credential):
            writer.field("ckWebAuthToken", token)
            writer.field("userRecordName", user)
            writer.field("isNewUser", isNewUser)
            if let credential { writer.field("anonymousCredential", credential) }
        case .codeSent(let expiresAt):
            writer.field("status", "CODE_SENT")
            writer.field("expiresAt", expiresAt)
        case .sessions(let sessions):
            writer.key("sessions")
            Self.write(sessions, to: &writer)
        case .status(let status, let ended):
            writer.field("status", status)
            if let ended { writer.field("ended", Int64(ended)) }
        case .deleted(let zones, let shares):
            writer.field("status", "DELETED")
            writer.field("zonesDeleted", Int64(zones))
            writer.field("sharesLeft", Int64(shares))
        case .account(let account):
            writer.key("account")
            Self.write(account, to: &writer)
        }
        writer.endObject()
    }

    /// Writes a sessions list (an array).
    static func write(_ sessions: [Session], to writer: inout JSONWriter) {
        writer.beginArray()
        for session in sessions {
            writer.beginObject()
            writer.field("sessionID", session.sessionID)
            if let device = session.device { writer.field("device", device) }
            writer.field("lastActiveAt", session.lastActiveAt)
            writer.field("expiresAt", session.expiresAt)
            writer.field("current", session.isCurrent)
            writer.endObject()
        }
        writer.endArray()
    }

    /// Writes an account (an object).
    static func write(_ account: Account, to writer: inout JSONWriter) {
        writer.beginObject()
        writer.field("userRecordName", account.userRecordName)
        writer.field("name", account.name)
        if let email = account.email { writer.field("email", email) }
        writer.field("anonymous", account.isAnonymous)
        writer.field("discoverable", account.isDiscoverable)
        writer.stringArray("providers", account.providers)
        writer.endObject()
    }

    /// Reads an answer (the SDK's side).
    /// - Throws: `.internalError` for a body that is none of the shapes.
    package init(json: JSONValue) throws(NimbusError) {
        let members = try json.object(at: "the answer")
        if let token = members.optional("ckWebAuthToken") {
            self = .signedIn(
                webAuthToken: try token.string(at: "ckWebAuthToken"),
                userRecordName: try members.required("userRecordName", at: "").string(at: "userRecordName"),
                isNewUser: try members.optional("isNewUser")?.bool(at: "isNewUser") ?? false,
                anonymousCredential: try members.optional("anonymousCredential")?.string(at: "anonymousCredential")
            )
        } else if let account = members.optional("account") {
            let fields = try account.object(at: "account")
            self = .account(
                Account(
                    userRecordName: try fields.required("userRecordName", at: "account").string(at: "account.userRecordName"),
                    name: try fields.required("name", at: "account").string(at: "account.name"),
                    email: try fields.optional("email")?.string(at: "account.email"),
                    isAnonymous: try fields.optional("anonymous")?.bool(at: "account.anonymous") ?? false,
                    isDiscoverable: try fields.optional("discoverable")?.bool(at: "account.discoverable") ?? false,
                    providers: try (fields.optional("providers")?.array(at: "account.providers") ?? []).map { (value) throws(NimbusError) in
                        try value.string(at: "account.providers")
                    }
                )
            )
        } else if let sessions = members.optional("sessions") {
            var read: [Session] = []
            for (index, entry) in try sessions.array(at: "sessions").enumerated() {
                let path = jsonPath("sessions", index)
                let session = try entry.object(at: path)
                read.append(
                    Session(
                        sessionID: try session.required("sessionID", at: path).string(at: path),
                        device: try session.optional("device")?.string(at: path),
                        lastActiveAt: try session.required("lastActiveAt", at: path).integer(at: path),
                        expiresAt: try session.required("expiresAt", at: path).integer(at: path),
                        isCurrent: try session.optional("current")?.bool(at: path) ?? false
                    )
                )
            }
            self = .sessions(read)
        } else {
            let status = try members.required("status", at: "").string(at: "status")
            if status == "DELETED" {
                self = .deleted(
                    zonesDeleted: Int(try members.optional("zonesDeleted")?.integer(at: "zonesDeleted") ?? 0),
                    sharesLeft: Int(try members.optional("sharesLeft")?.integer(at: "sharesLeft") ?? 0)
                )
            } else if status == "CODE_SENT" {
                self = .codeSent(expiresAt: try members.required("expiresAt", at: "").integer(at: "expiresAt"))
            } else {
                self = .status(status, ended: try members.optional("ended").map { (v) throws(NimbusError) in Int(try v.integer(at: "ended")) })
            }
        }
    }
}
