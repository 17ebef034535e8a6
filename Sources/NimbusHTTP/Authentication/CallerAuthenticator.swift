//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Hummingbird
import NimbusEngine
import NimbusModel

/// Turns a request's credentials into a caller: a server-to-server signature when the request
/// names a key, else the `ckAPIToken` and `ckWebAuthToken` of its query.
///
/// The one place request credentials are read, for database operations and the notification
/// channels alike.
struct CallerAuthenticator: Sendable {
    let accounts: AccountService

    /// Authenticates a request to a database of `container`.
    /// - Throws: `.authenticationFailed` without credentials or with bad ones.
    func authenticate(_ request: Request, body: [UInt8], container: String, environment: NimbusModel.Environment) async throws(NimbusError)
        -> Authentication
    {
        if let signature = Self.signature(of: request, body: body) {
            let caller = try await accounts.authenticate(signature: signature, container: container, environment: environment)
            return Authentication(caller: caller, webAuthToken: nil)
        }
        let query = request.uri.queryParameters
        guard let apiToken = query["ckAPIToken"] else {
            throw NimbusError(.authenticationFailed, "request has no credentials: pass ckAPIToken or sign it with a server-to-server key")
        }
        return try await accounts.authenticate(
            apiToken: String(apiToken),
            webAuthToken: query["ckWebAuthToken"].map(String.init),
            container: container,
            environment: environment
        )
    }

    /// Authenticates a request for a user's notifications: a signed-in user, or a
    /// server-to-server key reading its own inbox.
    /// - Returns: the authentication and the recipient whose notifications it may read.
    /// - Throws: `.authenticationFailed` without credentials or with bad ones;
    ///   `.authenticationRequired` without a signed-in user.
    func authenticateRecipient(_ request: Request, body: [UInt8], route: NotificationsRoute) async throws(NimbusError)
        -> (Authentication, recipient: String)
    {
        if route.channel == .inbox, let signature = Self.signature(of: request, body: body) {
            let caller = try await accounts.authenticate(signature: signature, container: route.container, environment: route.environment)
            guard let recipient = caller.notificationRecipient else { throw NimbusError(.authenticationFailed, "request signature is not valid") }
            return (Authentication(caller: caller, webAuthToken: nil), recipient)
        }
        let query = request.uri.queryParameters
        let (authentication, user) = try await accounts.authenticateNotifications(
            apiToken: query["ckAPIToken"].map(String.init),
            webAuthToken: query["ckWebAuthToken"].map(String.init),
            route: route
        )
        return (authentication, user)
    }

    /// The server-to-server signature a request carries, if it names a key.
    private static func signature(of request: Request, body: [UInt8]) -> RequestSignature? {
        guard let keyID = request.headers[HeaderName.keyID] else { return nil }
        return RequestSignature(
            keyID: keyID,
            date: request.headers[HeaderName.date] ?? "",
            signature: request.headers[HeaderName.signature] ?? "",
            body: body,
            path: request.uri.path
        )
    }
}
