//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Crypto
public import NimbusModel
import NimbusStore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A browser sign-in with a provider, begun: where to send the browser, and what the server must
/// keep (out of the browser's URL) to finish it.
public struct ProviderAuthorization: Sendable, Hashable {
    /// The provider's authorization URL, with the request's parameters.
    public var url: String
    /// The `state` the provider hands back, binding its answer to this sign-in.
    public var state: String
    /// PKCE's verifier: only its SHA-256 went to the provider.
    public var verifier: String
    /// The nonce the ID token must carry.
    public var nonce: String

    /// Creates an authorization: what ``SignInService/beginProviderSignIn(provider:redirectURI:context:)``
    /// answered, as kept until the provider sends the browser back.
    public init(url: String, state: String, verifier: String, nonce: String) {
        self.url = url
        self.state = state
        self.verifier = verifier
        self.nonce = nonce
    }
}

extension SignInService {
    /// Begins a browser sign-in with a configured provider: OpenID Connect's authorization code
    /// flow with PKCE (S256). The server keeps `verifier`, `nonce` and `state` (the sign-in page
    /// keeps them in an encrypted cookie) for ``finishProviderSignIn(provider:code:authorization:redirectURI:context:)``.
    /// - Parameter redirectURI: where the provider sends the browser back, as registered with it.
    public func beginProviderSignIn(provider name: String, redirectURI: String, context: SignInContext) async throws(NimbusError)
        -> ProviderAuthorization
    {
        let provider = try await browserProvider(name, context: context)
        let endpoints = try await verifier.endpoints(of: provider.issuer)
        let verifierCode = Base64URL.encode(Credentials.randomBytes(32))
        let challenge = Base64URL.encode(Array(SHA256.hash(data: Array(verifierCode.utf8))))
        let nonce = Hex.string(Credentials.randomBytes(16))
        let state = Hex.string(Credentials.randomBytes(16))
        var parameters = [
            ("response_type", "code"), ("client_id", provider.clientIDs[0]), ("redirect_uri", redirectURI),
            ("scope", provider.kind == .apple ? "name email" : "openid email profile"), ("state", state), ("nonce", nonce),
            ("code_challenge", challenge), ("code_challenge_method", "S256"),
        ]
        // Apple sends the name and email only in a form posted back (and only the first time).
        if provider.kind == .apple { parameters.append(("response_mode", "form_post")) }
        let separator = endpoints.authorization.contains("?") ? "&" : "?"
        return ProviderAuthorization(
            url: endpoints.authorization + separator + FormEncoding.encode(parameters),
            state: state,
            verifier: verifierCode,
            nonce: nonce
        )
    }

    /// Finishes a browser sign-in: exchanges the provider's code (with PKCE's verifier and the
    /// client secret, if configured) for an ID token at its token endpoint, verifies the token
    /// and its nonce as ``exchange(provider:idToken:nonce:context:)`` does, and signs the
    /// person in (or up).
    /// - Throws: `.authenticationFailed` when the provider refuses the code or its token does not
    ///   verify; `.serviceUnavailable` when the provider cannot be reached.
    public func finishProviderSignIn(
        provider name: String,
        code: String?,
        authorization: ProviderAuthorization,
        redirectURI: String,
        context: SignInContext
    ) async throws(NimbusError) -> SignedIn {
        guard let code, !code.isEmpty, code.utf8.count <= 4096 else { throw .badRequest("the provider sent no code") }
        let provider = try await browserProvider(name, context: context)
        let endpoints = try await verifier.endpoints(of: provider.issuer)
        var form = [
            ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", redirectURI), ("client_id", provider.clientIDs[0]),
            ("code_verifier", authorization.verifier),
        ]
        if let secret = provider.clientSecret { form.append(("client_secret", secret)) }
        let idToken: String
        do {
            let body = try await verifier.post(endpoints.token, form: form)
            struct TokenAnswer: Decodable { var id_token: String }
            idToken = try JSONDecoder().decode(TokenAnswer.self, from: Data(body)).id_token
        } catch {
            countClient(context)
            throw NimbusError(.authenticationFailed, "the provider did not exchange the code for an ID token; sign in again")
        }
        let (_, identity) = try await verifiedIdentity(provider: name, idToken: idToken, nonce: authorization.nonce, context: context)
        return try await signIn(identity, of: provider, context: context)
    }

    private func browserProvider(_ name: String, context: SignInContext) async throws(NimbusError) -> SignInProvider {
        guard let provider = try await settings(context.containerEnvironment).provider(named: name), !provider.clientIDs.isEmpty else {
            throw .badRequest("provider \(name.prefix(64)) is not configured for this container environment")
        }
        return provider
    }
}
