//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Foundation
import HTTPTypes
import HummingbirdTesting
import NimbusModel
import NimbusStore
import NimbusTesting
import Testing

@Suite("sign-in: a provider in the browser (authorization code with PKCE)")
struct ProviderBrowserSignInTests {
    /// The path and query of a URL of the server under test (`http://nimbus.test/...`).
    static func local(_ url: String) throws -> String {
        let components = try #require(URLComponents(string: url))
        return components.percentEncodedPath + (components.percentEncodedQuery.map { "?" + $0 } ?? "")
    }

    /// The value of the provider cookie a response sets.
    static func providerCookie(_ response: TestResponse) throws -> String {
        let setCookie = try #require(response.headers[values: .setCookie].first { $0.hasPrefix("nimbus_signin_provider=") })
        #expect(setCookie.contains("HttpOnly"))
        return String(setCookie.prefix { $0 != ";" })
    }

    @Test("the page sends the browser to the provider and back; the code, PKCE and the nonce sign the person in")
    func codeFlow() async throws {
        try await TestOpenIDIssuer.with { issuer in
            try await HTTPFixture.with { f, client in
                issuer.issueTokens { IDTokenExchangeTests.now(f) }
                issuer.requireClientSecret("s3cret")
                try await f.configureSignIn {
                    $0.providers = [
                        SignInProvider(name: "acme", kind: .generic, issuer: issuer.url, clientIDs: ["web-client"], clientSecret: "s3cret")
                    ]
                    $0.callbackURLs = ["https://app.example.com/signed-in"]
                }
                // The secret is kept sealed: the stored settings never hold it in clear.
                let stored = try await f.database.inspect("SELECT settings FROM sign_in_settings")
                #expect(stored.contains("web-client") && !stored.contains("s3cret"))

                let opened = try await SignInPageTests.open(client, query: "?callback=https%3A%2F%2Fapp.example.com%2Fsigned-in&state=app-state")
                #expect(String(buffer: try await client.send(.get, SignInPageTests.page).body).contains("Continue with acme"))
                let started = try await SignInPageTests.post(client, opened, ["action": "provider", "provider": "acme"])
                #expect(started.status == .seeOther)
                let authorization = try #require(started.headers[.location])
                #expect(authorization.hasPrefix(issuer.url + "/authorize?"))
                let cookie = try Self.providerCookie(started)
                let verifierInURL = authorization.contains("code_verifier")
                #expect(!verifierInURL)

                // The person consents at the provider, which sends the browser back.
                let back = try issuer.authorize(authorization, as: "web-1")
                #expect(back.hasPrefix("http://nimbus.test/signin/\(HTTPFixture.container)/development/provider/acme/callback?code="))
                let finished = try await client.send(.get, try Self.local(back), headers: [.cookie: cookie])
                #expect(finished.status == .seeOther, "\(String(buffer: finished.body))")
                let location = try #require(finished.headers[.location])
                #expect(location.hasPrefix("https://app.example.com/signed-in?ckWebAuthToken="))
                #expect(location.hasSuffix("&state=app-state"))
                let items = try #require(URLComponents(string: location)?.queryItems)
                let token = try #require(items.first { $0.name == "ckWebAuthToken" }?.value)
                let me = try #require(try await f.currentUser(client, token: token))
                #expect(me.name == "Web web-1")

                // The same answer again: the code was used (the provider refuses it) and nothing signs in.
                try await client.send(.get, try Self.local(back), headers: [.cookie: cookie]).expectError(
                    "AUTHENTICATION_FAILED",
                    status: .unauthorized
                )
                // The same person through the app's ID token exchange is the same user.
                let nonce = UUID().uuidString
                let idToken = try await issuer.sign(
                    issuer.claims(subject: "web-1", audience: "web-client", nonce: nonce, now: IDTokenExchangeTests.now(f))
                )
                let native = try await f.auth(client, "token", ["provider": "acme", "idToken": idToken, "nonce": nonce]).json
                #expect(native["userRecordName"] as? String == me.userRecordName)
            }
        }
    }

    @Test("an answer for another browser, a changed state, or no cookie is refused before the code is used")
    func bindings() async throws {
        try await TestOpenIDIssuer.with { issuer in
            try await HTTPFixture.with { f, client in
                issuer.issueTokens { IDTokenExchangeTests.now(f) }
                try await f.configureSignIn {
                    $0.providers = [SignInProvider(name: "acme", kind: .generic, issuer: issuer.url, clientIDs: ["web-client"])]
                }
                let users = try await f.userCount()
                let opened = try await SignInPageTests.open(client)
                let started = try await SignInPageTests.post(client, opened, ["action": "provider", "provider": "acme"])
                let cookie = try Self.providerCookie(started)
                let back = try issuer.authorize(try #require(started.headers[.location]), as: "web-2")
                // No cookie: a sign-in someone else began (login CSRF).
                try await client.send(.get, try Self.local(back)).expectError("BAD_REQUEST", status: .badRequest)
                // A changed state.
                let tampered = back.replacingOccurrences(of: "state=", with: "state=0")
                try await client.send(.get, try Self.local(tampered), headers: [.cookie: cookie]).expectError("BAD_REQUEST", status: .badRequest)
                // A changed cookie.
                try await client.send(.get, try Self.local(back), headers: [.cookie: cookie + "A"]).expectError("BAD_REQUEST", status: .badRequest)
                // Too late: the cookie's ten minutes are over.
                f.clock.advance(by: .seconds(601))
                try await client.send(.get, try Self.local(back), headers: [.cookie: cookie]).expectError("BAD_REQUEST", status: .badRequest)
                // The person said no at the provider: the page again, saying so.
                let again = try await SignInPageTests.open(client)
                let second = try await SignInPageTests.post(client, again, ["action": "provider", "provider": "acme"])
                let location = try #require(second.headers[.location])
                let state = try #require(URLComponents(string: location)?.queryItems?.first { $0.name == "state" }?.value)
                let refused = try await client.send(
                    .get,
                    "/signin/\(HTTPFixture.container)/development/provider/acme/callback?error=access_denied&state=\(state)",
                    headers: [.cookie: try Self.providerCookie(second)]
                )
                #expect(refused.status == .unauthorized)
                #expect(String(buffer: refused.body).contains("acme did not sign you in (access_denied)."))
                #expect(try await f.userCount() == users)
            }
        }
    }
}
