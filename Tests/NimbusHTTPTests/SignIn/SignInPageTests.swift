//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Foundation
import HTTPTypes
import HummingbirdTesting
import NimbusEngine
import NimbusModel
import NimbusStore
import NimbusTesting
import Testing

@Suite("sign-in: the browser page a 421 points at")
struct SignInPageTests {
    static let page = "/signin/\(HTTPFixture.container)/development"

    /// The page's hidden fields and its CSRF cookie, as a browser would keep them.
    struct Opened {
        var flow: String
        var csrf: String
        var cookie: String
    }

    static func open(_ client: any TestClientProtocol, query: String = "") async throws -> Opened {
        let response = try await client.send(.get, page + query)
        #expect(response.status == .ok)
        let html = String(buffer: response.body)
        let setCookie = try #require(response.headers[.setCookie])
        #expect(setCookie.contains("HttpOnly") && setCookie.contains("SameSite=Strict") && setCookie.contains("Path=/signin"))
        #expect(response.headers[HTTPField.Name("Content-Security-Policy")!]?.contains("frame-ancestors 'none'") == true)
        return Opened(
            flow: try #require(hidden("flow", in: html)),
            csrf: try #require(hidden("csrf", in: html)),
            cookie: String(setCookie.prefix { $0 != ";" })
        )
    }

    static func hidden(_ name: String, in html: String) -> String? {
        guard let range = html.range(of: "name=\"\(name)\" value=\"") else { return nil }
        return String(html[range.upperBound...].prefix { $0 != "\"" }).replacingOccurrences(of: "&quot;", with: "\"")
    }

    static func post(_ client: any TestClientProtocol, _ opened: Opened, _ fields: [String: String], cookie: Bool = true) async throws -> TestResponse
    {
        var all = fields
        all["flow"] = all["flow"] ?? opened.flow
        all["csrf"] = all["csrf"] ?? opened.csrf
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        let body = all.map { "\($0.key)=\($0.value.addingPercentEncoding(withAllowedCharacters: allowed)!)" }.joined(separator: "&")
        var headers: HTTPFields = [.contentType: "application/x-www-form-urlencoded"]
        if cookie { headers[.cookie] = opened.cookie }
        return try await client.send(.post, page, json: body, headers: headers)
    }

    @Test("a 421 names the page of its container and environment; the page offers the ways the container allows")
    func redirectURLAndForms() async throws {
        try await HTTPFixture.with { f, client in
            let denied = try await client.send(.get, f.path("users/current", scope: "public"))
            #expect(try denied.json["redirectURL"] as? String == "http://nimbus.test/signin/\(HTTPFixture.container)/development")
            let html = String(buffer: try await client.send(.get, Self.page).body)
            for form in ["class=\"signin\"", "class=\"signup\"", "class=\"code\"", "class=\"anonymous\""] { #expect(html.contains(form), "\(form)") }
            try await f.configureSignIn {
                $0.anonymousEnabled = false
                $0.passwordEnabled = false
            }
            let fewer = String(buffer: try await client.send(.get, Self.page).body)
            #expect(!fewer.contains("class=\"anonymous\"") && !fewer.contains("class=\"signin\"") && fewer.contains("class=\"code\""))
            try await client.send(.get, "/signin/iCloud.unknown/development").expectError("NOT_FOUND", status: .notFound)
        }
    }

    @Test("signed in on the page, the browser is sent to the registered callback with the token and the app's state")
    func callbackRedirect() async throws {
        try await HTTPFixture.with { f, client in
            try await f.configureSignIn { $0.callbackURLs = ["https://app.example.com/signed-in"] }
            _ = try await f.signUp(client, email: "page@example.com", password: "page's long password", name: "Paige")
            let opened = try await Self.open(client, query: "?callback=https%3A%2F%2Fapp.example.com%2Fsigned-in&state=xyz%20123")
            let response = try await Self.post(client, opened, ["action": "signin", "email": "page@example.com", "password": "page's long password"])
            #expect(response.status == .seeOther)
            let location = try #require(response.headers[.location])
            #expect(location.hasPrefix("https://app.example.com/signed-in?ckWebAuthToken="))
            let components = try #require(URLComponents(string: location))
            let items = Dictionary(uniqueKeysWithValues: (components.queryItems ?? []).map { ($0.name, $0.value ?? "") })
            #expect(items["state"] == "xyz 123")
            #expect(items["ckSession"] == items["ckWebAuthToken"])
            #expect(try await f.currentUser(client, token: try #require(items["ckWebAuthToken"]))?.name == "Paige")

            // The fragment form, after a sign-up with a code.
            let again = try await Self.open(client, query: "?callback=https%3A%2F%2Fapp.example.com%2Fsigned-in&tokenIn=fragment")
            let codeForm = try await Self.post(
                client,
                again,
                ["action": "signup", "email": "pat@example.com", "password": "pat's long password", "name": "Pat"]
            )
            #expect(codeForm.status == .ok)
            #expect(String(buffer: codeForm.body).contains("name=\"code\""))
            let code = try #require(TestMailbox.code(in: try await f.mail.next(to: "pat@example.com")))
            let verified = try await Self.post(client, again, ["action": "verify", "email": "pat@example.com", "code": code])
            #expect(verified.status == .seeOther)
            let fragment = try #require(verified.headers[.location])
            #expect(fragment.hasPrefix("https://app.example.com/signed-in#ckWebAuthToken="))
        }
    }

    @Test("opened as a popup, the page posts the token to the opener's registered origin only")
    func postMessageToOrigin() async throws {
        try await HTTPFixture.with { f, client in
            try await f.configureSignIn { $0.callbackURLs = ["https://app.example.com/signed-in"] }
            let opened = try await Self.open(client, query: "?origin=https%3A%2F%2Fapp.example.com&state=s1")
            let response = try await Self.post(client, opened, ["action": "anonymous", "name": "Popup"])
            #expect(response.status == .ok)
            let html = String(buffer: response.body)
            #expect(html.contains("window.opener.postMessage(message, data.origin)"))
            #expect(html.contains(#"data-origin="https://app.example.com""#))
            #expect(html.contains(#"data-state="s1" data-has-state="true""#))
            #expect(html.contains(#"data-token=""#))
            let policy = try #require(response.headers[HTTPField.Name("Content-Security-Policy")!])
            let nonce = try #require(policy.range(of: "'nonce-").map { String(policy[$0.upperBound...].prefix { $0 != "'" }) })
            #expect(html.contains("<script nonce=\"\(nonce)\">"))
        }
    }

    @Test("a callback or origin not registered, a changed form, or a form from elsewhere is a 4xx that creates nothing")
    func refusals() async throws {
        try await HTTPFixture.with { f, client in
            try await f.configureSignIn { $0.callbackURLs = ["https://app.example.com/signed-in"] }
            let users = try await f.userCount()
            for query in [
                "?callback=https%3A%2F%2Fevil.example.com%2Fsigned-in",
                "?callback=https%3A%2F%2Fapp.example.com%2Fsigned-in%2Fmore",
                "?callback=https%3A%2F%2Fapp.example.com.evil.com%2Fsigned-in",
                "?callback=http%3A%2F%2Fapp.example.com%2Fsigned-in",
                "?callback=javascript%3Aalert(1)",
                "?origin=https%3A%2F%2Fevil.example.com",
                "?origin=https%3A%2F%2Fapp.example.com%2Fpath",
            ] {
                try await client.send(.get, Self.page + query).expectError("BAD_REQUEST", status: .badRequest)
            }
            let opened = try await Self.open(client, query: "?callback=https%3A%2F%2Fapp.example.com%2Fsigned-in")
            // No cookie: the form was posted from another site.
            try await Self.post(client, opened, ["action": "anonymous", "name": "X"], cookie: false).expectError("ACCESS_DENIED", status: .forbidden)
            // A CSRF field that does not match the cookie.
            try await Self.post(client, opened, ["action": "anonymous", "name": "X", "csrf": String(repeating: "0", count: 32)])
                .expectError("ACCESS_DENIED", status: .forbidden)
            // A changed flow (its callback swapped, its seal kept).
            var tampered = opened.flow
            let flip = tampered.index(tampered.startIndex, offsetBy: 10)
            tampered.replaceSubrange(flip...flip, with: tampered[flip] == "A" ? "B" : "A")
            try await Self.post(client, opened, ["action": "anonymous", "name": "X", "flow": tampered]).expectError(
                "BAD_REQUEST",
                status: .badRequest
            )
            // A flow past its hour.
            f.clock.advance(by: .seconds(3601))
            try await Self.post(client, opened, ["action": "anonymous", "name": "X"]).expectError("BAD_REQUEST", status: .badRequest)
            #expect(try await f.userCount() == users)
        }
    }

    @Test("a loopback callback (nimbus login, native apps) takes any port; production takes it only once registered")
    func loopbackCallback() async throws {
        try await HTTPFixture.with { f, client in
            let production = "/signin/\(HTTPFixture.container)/production"
            func status(_ page: String, _ callback: String) async throws -> HTTPResponse.Status {
                var allowed = CharacterSet.alphanumerics
                allowed.insert(charactersIn: "-._~")
                return try await client.send(.get, page + "?callback=" + callback.addingPercentEncoding(withAllowedCharacters: allowed)!).status
            }
            _ = try await f.instance.accounts.createContainer(HTTPFixture.container, environment: .production)
            #expect(try await status(Self.page, "http://127.0.0.1:5123/callback") == .ok)
            #expect(try await status(production, "http://127.0.0.1:5123/callback") == .badRequest)
            let environment = ContainerEnvironment(container: HTTPFixture.container, environment: .production)
            var settings = try await f.instance.signIn.settings(environment)
            settings.callbackURLs = ["http://127.0.0.1/callback"]
            try await f.instance.signIn.saveSettings(settings, for: environment)
            #expect(try await status(production, "http://127.0.0.1:5123/callback") == .ok)
            #expect(try await status(production, "http://127.0.0.1:61000/callback") == .ok)
            #expect(try await status(production, "http://127.0.0.1:5123/elsewhere") == .badRequest)
            #expect(try await status(production, "http://127.0.0.1.evil.com:5123/callback") == .badRequest)
            #expect(try await status(production, "http://example.com:5123/callback") == .badRequest)
            // Plain HTTP anywhere but loopback cannot even be registered.
            settings.callbackURLs = ["http://app.example.com/callback"]
            await #expect(throws: NimbusError.self) { try await f.instance.signIn.saveSettings(settings, for: environment) }
        }
    }

    @Test("a wrong password shows the page again with the reason, as a 401")
    func wrongPassword() async throws {
        try await HTTPFixture.with { f, client in
            let opened = try await Self.open(client)
            let response = try await Self.post(client, opened, ["action": "signin", "email": "none@example.com", "password": "whatever it is"])
            #expect(response.status == .unauthorized)
            let html = String(buffer: response.body)
            #expect(html.contains("email or password is wrong"))
            #expect(html.contains("value=\"none@example.com\""))
        }
    }
}
