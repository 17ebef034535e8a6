//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Crypto
import Foundation
import NimbusEngine
import NimbusModel

/// Where a browser sign-in goes back to, carried through the sign-in page's forms and sealed
/// with the server's key, so a form cannot be changed to send the token elsewhere.
///
/// The page checks the callback URL and the `postMessage` origin against the container's
/// registered callback URLs when it is opened; what it then carries is exactly what it checked.
/// A sealed flow lives an hour: long enough to read a mailed code, short enough that an old
/// page left open does not sign in tomorrow.
struct SignInFlow: Codable, Sendable, Equatable {
    var container: String
    var environment: String
    /// A registered URL the token is sent to by redirect.
    var callback: String?
    /// The origin of the window that opened the page, which `postMessage` targets.
    var origin: String?
    /// A page of this server to come back to, signed in (a share's invitation page).
    var returnPath: String?
    /// The app's own value, handed back as it came, for its CSRF check.
    var state: String?
    /// Whether the redirect carries the token in the fragment rather than the query.
    var tokenInFragment: Bool
    /// Milliseconds since 1970.
    var issuedAt: Int64

    static let lifetime: Int64 = 60 * 60 * 1000

    /// The flow as a form value: its JSON and the JSON's HMAC, both base64url.
    func sealed(with key: SymmetricKey) -> String {
        let json = (try? JSONEncoder().encode(self)) ?? Data()
        let mac = Data(HMAC<SHA256>.authenticationCode(for: json, using: key))
        return Base64URL.encode(Array(json)) + "." + Base64URL.encode(Array(mac))
    }

    /// The flow a form value seals, or `nil` if it was changed, is malformed or too old.
    static func open(_ sealed: String, with key: SymmetricKey, now: Int64) -> SignInFlow? {
        let parts = sealed.split(separator: ".")
        guard parts.count == 2, let json = Base64URL.decode(parts[0]), let mac = Base64URL.decode(parts[1]),
            HMAC<SHA256>.isValidAuthenticationCode(mac, authenticating: json, using: key),
            let flow = try? JSONDecoder().decode(SignInFlow.self, from: json),
            now - flow.issuedAt < lifetime, flow.issuedAt <= now + 60_000
        else { return nil }
        return flow
    }
}
