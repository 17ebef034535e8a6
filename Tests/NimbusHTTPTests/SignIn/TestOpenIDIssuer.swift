//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Crypto
import Foundation
import Hummingbird
import JWTKit
import Logging
import Synchronization
import Testing
import _CryptoExtras

/// A small OpenID Connect issuer on loopback: it serves its discovery document and its key set
/// (JWKS) over HTTP, signs ID tokens with RSA keys of its own (RS256, as Apple and Google do),
/// and rotates its key on demand. The server under test fetches its keys over the network.
final class TestOpenIDIssuer: Sendable {
    /// The issuer URL (`http://127.0.0.1:PORT`), as tokens carry it in `iss`.
    var url: String { address.withLock { $0 } }
    private let address = Mutex("")
    private let state: Mutex<State>

    private struct State {
        var keys: [(kid: String, key: JWTKit.Insecure.RSA.PrivateKey)]
        var keySetFetches = 0
        var codes: [String: PendingCode] = [:]
        var clientSecret: String?
        /// The time the token endpoint's tokens are issued at.
        var now: @Sendable () -> Date = { Date() }
    }

    /// A code the authorization endpoint gave, waiting for the token endpoint.
    private struct PendingCode {
        var clientID: String
        var redirectURI: String
        var challenge: String
        var nonce: String?
        var subject: String
    }

    private init(firstKey: JWTKit.Insecure.RSA.PrivateKey) {
        state = Mutex(State(keys: [(kid: "key-1", key: firstKey)]))
    }

    /// How many times the key set was fetched.
    var keySetFetches: Int { state.withLock { $0.keySetFetches } }

    /// Issues the token endpoint's tokens at `now` (the server's clock) rather than the real
    /// time: a server on a test's clock, which does not move while the test runs, refuses a
    /// token issued more than its leeway after it, and a loaded suite gets there.
    func issueTokens(at now: @escaping @Sendable () -> Date) {
        state.withLock { $0.now = now }
    }

    /// The key ID tokens are signed with now.
    var currentKeyID: String { state.withLock { $0.keys.last!.kid } }

    /// Runs `body` with an issuer listening on loopback, and stops it afterwards.
    static func with(_ body: @Sendable (TestOpenIDIssuer) async throws -> Void) async throws {
        let issuer = TestOpenIDIssuer(firstKey: try makeKey())
        let (ports, portContinuation) = AsyncStream.makeStream(of: Int.self)
        let router = Router()
        router.get("/.well-known/openid-configuration") { _, _ -> Response in
            let url = issuer.url
            return json([
                "issuer": url, "jwks_uri": url + "/jwks", "authorization_endpoint": url + "/authorize", "token_endpoint": url + "/token",
                "id_token_signing_alg_values_supported": ["RS256"],
            ])
        }
        router.get("/jwks") { _, _ -> Response in
            let keys = issuer.state.withLock { state in
                state.keySetFetches += 1
                return state.keys
            }
            return json(["keys": try keys.map { try jwk(kid: $0.kid, key: $0.key) }])
        }
        router.post("/token") { request, _ -> Response in
            let body = String(buffer: try await request.body.collect(upTo: 64 * 1024))
            return try await issuer.token(form: body)
        }
        var logger = Logger(label: "test-openid-issuer")
        // Cancelling the server at the end logs its closing channels as errors.
        logger.logLevel = .critical
        let app = Application(
            router: router,
            configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in
                if let port = channel.localAddress?.port { portContinuation.yield(port) }
                portContinuation.finish()
            },
            logger: logger
        )
        let server = Task { try await app.runService(gracefulShutdownSignals: []) }
        defer { server.cancel() }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else { throw FixtureFailure("the test issuer did not start") }
        issuer.address.withLock { $0 = "http://127.0.0.1:\(port)" }
        try await body(issuer)
    }

    /// Publishes a new key and signs with it from now on; the old key stays published unless
    /// `retiringOld`.
    func rotate(retiringOld: Bool = false) throws {
        let key = try Self.makeKey()
        state.withLock { state in
            let kid = "key-\(state.keys.count + 1)"
            if retiringOld { state.keys.removeAll() }
            state.keys.append((kid: kid, key: key))
        }
    }

    /// The claims of a token, each of which a test may spoil.
    struct Claims: JWTPayload {
        var iss: String
        var sub: String
        var aud: AudienceClaim
        var exp: ExpirationClaim
        var iat: IssuedAtClaim
        var nonce: String?
        var email: String?
        var email_verified: String?
        var name: String?

        func verify(using algorithm: some JWTAlgorithm) throws {}
    }

    /// Claims for `subject`, valid for an hour from `now`, for `audience`.
    func claims(subject: String, audience: String, nonce: String?, now: Date, email: String? = nil, emailVerified: Bool? = nil, name: String? = nil)
        -> Claims
    {
        Claims(
            iss: url,
            sub: subject,
            aud: AudienceClaim(value: [audience]),
            exp: ExpirationClaim(value: now.addingTimeInterval(3600)),
            iat: IssuedAtClaim(value: now),
            nonce: nonce,
            email: email,
            email_verified: emailVerified.map { $0 ? "true" : "false" },
            name: name
        )
    }

    /// Signs `claims` with the current key (or with a key the issuer never published: a forgery).
    func sign(_ claims: some JWTPayload, forged: Bool = false) async throws -> String {
        let (kid, key) = state.withLock { $0.keys.last! }
        let signingKey = forged ? try Self.makeKey() : key
        let keys = await JWTKeyCollection().add(rsa: signingKey, digestAlgorithm: .sha256, kid: JWKIdentifier(string: kid))
        return try await keys.sign(claims, kid: JWKIdentifier(string: kid))
    }

    /// The client secret the token endpoint requires, if any.
    func requireClientSecret(_ secret: String?) {
        state.withLock { $0.clientSecret = secret }
    }

    /// What the authorization endpoint does once the person consents as `subject`: the URL it
    /// sends the browser back to, with a code and the request's `state`.
    func authorize(_ authorizationURL: String, as subject: String) throws -> String {
        let query = try #require(URLComponents(string: authorizationURL)?.queryItems)
        func value(_ name: String) -> String? { query.first { $0.name == name }?.value }
        let redirectURI = try #require(value("redirect_uri"))
        #expect(value("code_challenge_method") == "S256")
        #expect(value("response_type") == "code")
        let code = UUID().uuidString
        state.withLock {
            $0.codes[code] = PendingCode(
                clientID: value("client_id") ?? "",
                redirectURI: redirectURI,
                challenge: value("code_challenge") ?? "",
                nonce: value("nonce"),
                subject: subject
            )
        }
        return redirectURI + "?code=\(code)&state=\(value("state") ?? "")"
    }

    /// The token endpoint: a code, once, for the client and redirect it was given to, with the
    /// PKCE verifier whose SHA-256 the authorization request carried.
    private func token(form body: String) async throws -> Response {
        var form: [String: String] = [:]
        for pair in body.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map { String($0).removingPercentEncoding ?? "" }
            if parts.count == 2 { form[parts[0]] = parts[1] }
        }
        let (pending, secret) = state.withLock { state in (state.codes.removeValue(forKey: form["code"] ?? ""), state.clientSecret) }
        let verifierHash = Data(SHA256.hash(data: Data((form["code_verifier"] ?? "").utf8))).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        guard let pending, form["grant_type"] == "authorization_code", form["client_id"] == pending.clientID,
            form["redirect_uri"] == pending.redirectURI, verifierHash == pending.challenge, secret == nil || form["client_secret"] == secret
        else {
            return Response(
                status: .badRequest,
                headers: [.contentType: "application/json"],
                body: .init(byteBuffer: ByteBuffer(string: #"{"error":"invalid_grant"}"#))
            )
        }
        let claims = claims(
            subject: pending.subject,
            audience: pending.clientID,
            nonce: pending.nonce,
            now: state.withLock { $0.now }(),
            name: "Web \(pending.subject)"
        )
        return Self.json(["id_token": try await sign(claims), "access_token": "unused", "token_type": "Bearer"])
    }

    // MARK: - Private

    private static func makeKey() throws -> JWTKit.Insecure.RSA.PrivateKey {
        try JWTKit.Insecure.RSA.PrivateKey(backing: _RSA.Signing.PrivateKey(keySize: .bits2048))
    }

    private static func jwk(kid: String, key: JWTKit.Insecure.RSA.PrivateKey) throws -> [String: String] {
        let (modulus, exponent) = try key.publicKey.getKeyPrimitives()
        return ["kty": "RSA", "kid": kid, "alg": "RS256", "use": "sig", "n": base64URL(modulus), "e": base64URL(exponent)]
    }

    private static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    private static func json(_ object: Any) -> Response {
        let data = (try? JSONSerialization.data(withJSONObject: object)) ?? Data()
        return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}
