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

/// Calls of `/auth/1/...` for the sign-in tests.
extension HTTPFixture {
    /// `/auth/1/{container}/development/{action}?ckAPIToken=...[&ckWebAuthToken=...]`
    func authPath(_ action: String, token: String? = nil) -> String {
        var query = "ckAPIToken=\(apiToken)"
        if let token { query += "&ckWebAuthToken=" + token.addingPercentEncoding(withAllowedCharacters: .alphanumerics)! }
        return "/auth/1/\(Self.container)/development/\(action)?\(query)"
    }

    /// Posts `body` to an action and returns the answer.
    func auth(_ client: any TestClientProtocol, _ action: String, _ body: [String: Any], token: String? = nil) async throws -> TestResponse {
        let data = try JSONSerialization.data(withJSONObject: body)
        return try await client.send(.post, authPath(action, token: token), json: String(decoding: data, as: UTF8.self))
    }

    /// Signs up with an email and password and verifies the mailed code; returns the answer.
    func signUp(_ client: any TestClientProtocol, email: String, password: String, name: String) async throws -> [String: Any] {
        let started = try await auth(client, "signup", ["email": email, "password": password, "name": name])
        #expect(started.status == .ok)
        let code = try #require(TestMailbox.code(in: try await mail.next(to: email)))
        let verified = try await auth(client, "verify", ["email": email, "code": code])
        #expect(verified.status == .ok)
        return try verified.json
    }

    /// The name `users/current` gives the holder of `token`, or `nil` if the token does not sign in.
    func currentUser(_ client: any TestClientProtocol, token: String) async throws -> (name: String, userRecordName: String)? {
        let response = try await client.send(.get, path("users/current", scope: "public", user: token))
        guard response.status == .ok else { return nil }
        let body = try response.json
        let name = [body["firstName"] as? String, body["lastName"] as? String].compactMap { $0 }.joined(separator: " ")
        return (name, body["userRecordName"] as? String ?? "")
    }

    /// How many users (developer excluded) the container has.
    func userCount() async throws -> Int {
        try await instance.signIn.users(inContainer: Self.container, search: nil, limit: 1000).count
    }

    /// Saves sign-in settings for the development environment.
    func configureSignIn(_ change: (inout SignInSettings) -> Void) async throws {
        let environment = ContainerEnvironment(container: Self.container, environment: .development)
        var settings = try await instance.signIn.settings(environment)
        change(&settings)
        try await instance.signIn.saveSettings(settings, for: environment)
    }
}

extension TestResponse {
    /// The answer with its request UUID removed: what two answers to compare have in common.
    var comparableBody: String {
        get throws {
            var body = try json
            body["uuid"] = nil
            let data = try JSONSerialization.data(withJSONObject: body, options: [.sortedKeys])
            return String(decoding: data, as: UTF8.self)
        }
    }
}
