//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

/// How people sign in to one container environment: which ways are open, where the browser
/// flow may send a token back, and which OpenID Connect providers are trusted.
///
/// Decision: without saved settings a container environment takes ``init()``'s defaults:
/// email and password, email codes and anonymous accounts open, no provider and no callback
/// URL. An app can sign people in from its first minute, and an operator closes what it does
/// not want.
public struct SignInSettings: Sendable, Hashable, Codable {
    /// Whether people may sign up and sign in with an email address and a password.
    public var passwordEnabled: Bool
    /// Whether people may sign in with a one-time code sent to their email address.
    public var emailCodeEnabled: Bool
    /// Whether people may sign up with only a name, as an anonymous account.
    public var anonymousEnabled: Bool
    /// The shortest password accepted, in characters.
    public var minimumPasswordLength: Int
    /// The URLs the browser flow may send a token back to (exact matches, query excluded).
    public var callbackURLs: [String]
    /// The OpenID Connect providers whose ID tokens sign people in.
    public var providers: [SignInProvider]
    /// The SMTP server this container environment's mail goes through, as an SMTP URL (it may
    /// hold a password: stores keep it encrypted); `nil`: the server's own (`NIMBUS_SMTP_URL`).
    public var smtpURL: String?

    /// Creates the default settings.
    public init(
        passwordEnabled: Bool = true,
        emailCodeEnabled: Bool = true,
        anonymousEnabled: Bool = true,
        minimumPasswordLength: Int = 10,
        callbackURLs: [String] = [],
        providers: [SignInProvider] = [],
        smtpURL: String? = nil
    ) {
        self.passwordEnabled = passwordEnabled
        self.emailCodeEnabled = emailCodeEnabled
        self.anonymousEnabled = anonymousEnabled
        self.minimumPasswordLength = minimumPasswordLength
        self.callbackURLs = callbackURLs
        self.providers = providers
        self.smtpURL = smtpURL
    }

    /// The provider configured under `name`, if any.
    public func provider(named name: String) -> SignInProvider? {
        providers.first { $0.name == name }
    }

    // Settings saved by an earlier version lack the fields added since: each takes its default.
    public init(from decoder: any Decoder) throws {
        let defaults = SignInSettings()
        let values = try decoder.container(keyedBy: CodingKeys.self)
        passwordEnabled = try values.decodeIfPresent(Bool.self, forKey: .passwordEnabled) ?? defaults.passwordEnabled
        emailCodeEnabled = try values.decodeIfPresent(Bool.self, forKey: .emailCodeEnabled) ?? defaults.emailCodeEnabled
        anonymousEnabled = try values.decodeIfPresent(Bool.self, forKey: .anonymousEnabled) ?? defaults.anonymousEnabled
        minimumPasswordLength = try values.decodeIfPresent(Int.self, forKey: .minimumPasswordLength) ?? defaults.minimumPasswordLength
        callbackURLs = try values.decodeIfPresent([String].self, forKey: .callbackURLs) ?? []
        providers = try values.decodeIfPresent([SignInProvider].self, forKey: .providers) ?? []
        smtpURL = try values.decodeIfPresent(String.self, forKey: .smtpURL)
    }
}
