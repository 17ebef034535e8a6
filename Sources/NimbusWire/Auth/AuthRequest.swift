//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

package import NimbusModel

/// The body of `POST /auth/1/{container}/{environment}/{action}`, a Nimbus extension in the
/// CKWS style: the fields each action reads, all optional here; the action says which it needs.
///
/// | action | fields |
/// |---|---|
/// | `signup` | `email`, `password`, `name`; or only `name` (an anonymous account) |
/// | `verify` | `email`, `code`; `password` for a reset |
/// | `signin` | `email`, `password`; or `anonymousCredential` |
/// | `code` | `email`, optional `name` |
/// | `reset` | `email` |
/// | `token` | `provider`, `idToken`, `nonce` |
/// | `link` | `email` and optional `password`; or `provider`, `idToken`, `nonce` |
/// | `password` | `currentPassword` (when one is set), `password` |
/// | `signout` | nothing |
/// | `sessions` | nothing (list), `end` (a session ID) or `all: true` |
/// | `account` | nothing (read), or `name` and/or `discoverable` (change) |
/// | `delete` | `confirm: true` |
public struct AuthRequest: WireRequestBody, Hashable {
    /// An email address.
    public var email: String?
    /// A password (the new one, for `password` and a reset).
    public var password: String?
    /// The name a person goes by.
    public var name: String?
    /// A code mailed to `email`.
    public var code: String?
    /// The caller's password now (`password`).
    public var currentPassword: String?
    /// A configured provider's name (`token`, `link`).
    public var provider: String?
    /// An ID token from that provider.
    public var idToken: String?
    /// The nonce the app passed to the provider.
    public var nonce: String?
    /// The credential an anonymous sign-up handed the device.
    public var anonymousCredential: String?
    /// The session to end (`sessions`).
    public var end: String?
    /// Whether to end every session (`sessions`).
    public var all: Bool?
    /// That the caller means it (`delete`).
    public var confirm: Bool?
    /// Whether others may find the caller by their addresses (`account`).
    public var discoverable: Bool?

    /// Creates a request.
    public init(
        email: String? = nil,
        password: String? = nil,
        name: String? = nil,
        code: String? = nil,
        currentPassword: String? = nil,
        provider: String? = nil,
        idToken: String? = nil,
        nonce: String? = nil,
        anonymousCredential: String? = nil,
        end: String? = nil,
        all: Bool? = nil,
        confirm: Bool? = nil,
        discoverable: Bool? = nil
    ) {
        self.email = email
        self.password = password
        self.name = name
        self.code = code
        self.currentPassword = currentPassword
        self.provider = provider
        self.idToken = idToken
        self.nonce = nonce
        self.anonymousCredential = anonymousCredential
        self.end = end
        self.all = all
        self.confirm = confirm
        self.discoverable = discoverable
    }

    package init(json: JSONValue) throws(NimbusError) {
        let members = try json.object(at: "the body")
        func string(_ key: String) throws(NimbusError) -> String? {
            guard let value = members.optional(key), !value.isNull else { return nil }
            return try value.string(at: key)
        }
        email = try string("email")
        password = try string("password")
        name = try string("name")
        code = try string("code")
        currentPassword = try string("currentPassword")
        provider = try string("provider")
        idToken = try string("idToken")
        nonce = try string("nonce")
        anonymousCredential = try string("anonymousCredential")
        end = try string("end")
        all = try members.optionalBool("all")
        confirm = try members.optionalBool("confirm")
        discoverable = try members.optionalBool("discoverable")
    }

    package func write(to writer: inout JSONWriter) {
        writer.beginObject()
        if let email { writer.field("email", email) }
        if let password { writer.field("password", password) }
        if let name { writer.field("name", name) }
        if let code { writer.field("code", code) }
        if let currentPassword { writer.field("currentPassword", currentPassword) }
        if let provider { writer.field("provider", provider) }
        if let idToken { writer.field("idToken", idToken) }
        if let nonce { writer.field("nonce", nonce) }
        if let anonymousCredential { writer.field("anonymousCredential", anonymousCredential) }
        if let end { writer.field("end", end) }
        if let all { writer.field("all", all) }
        if let confirm { writer.field("confirm", confirm) }
        if let discoverable { writer.field("discoverable", discoverable) }
        writer.endObject()
    }
}
