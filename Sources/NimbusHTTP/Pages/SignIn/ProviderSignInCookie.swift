//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Crypto
import Foundation
import NimbusEngine

/// What a browser sign-in with a provider must keep while the person is at the provider: PKCE's
/// verifier, the nonce, the `state` the provider hands back, and the page's sealed flow.
///
/// It travels in an encrypted, `HttpOnly` cookie, never in a URL: the verifier must not go
/// where the code goes (the provider's redirect), or PKCE would protect nothing. The `state`
/// the provider returns must equal the cookie's, which binds its answer to the browser that
/// began the sign-in (no login CSRF).
struct ProviderSignInCookie: Codable, Sendable, Equatable {
    static let name = "nimbus_signin_provider"
    /// How long a person may take at the provider, in milliseconds.
    static let lifetime: Int64 = 10 * 60 * 1000

    var provider: String
    var state: String
    var verifier: String
    var nonce: String
    /// The sign-in page's sealed flow (``SignInFlow``): where the token goes afterwards.
    var flow: String
    var issuedAt: Int64

    var authorization: ProviderAuthorization {
        ProviderAuthorization(url: "", state: state, verifier: verifier, nonce: nonce)
    }

    /// The cookie's value: the JSON sealed with ChaCha20-Poly1305, base64url.
    func sealed(with key: SymmetricKey) -> String? {
        guard let json = try? JSONEncoder().encode(self), let box = try? ChaChaPoly.seal(json, using: key) else { return nil }
        return Base64URL.encode(Array(box.combined))
    }

    /// The cookie a value seals, or `nil` if it was changed or is too old.
    static func open(_ value: String, with key: SymmetricKey, now: Int64) -> ProviderSignInCookie? {
        guard let data = Base64URL.decode(Substring(value)), let box = try? ChaChaPoly.SealedBox(combined: data),
            let json = try? ChaChaPoly.open(box, using: key), let cookie = try? JSONDecoder().decode(Self.self, from: json),
            now - cookie.issuedAt < lifetime, cookie.issuedAt <= now + 60_000
        else { return nil }
        return cookie
    }
}
