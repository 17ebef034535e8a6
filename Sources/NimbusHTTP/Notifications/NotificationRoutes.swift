//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Hummingbird
import NimbusEngine
import NimbusModel
import NimbusStore

/// A user's notification channels over plain HTTP: the inbox
/// (`/database/1/{container}/{environment}/notifications/inbox`), and the WebSocket stream's
/// URL reached without an upgrade (its authentication failed, or the client did not ask for one).
///
/// Upgraded stream connections never reach the router: ``NotificationSocket`` answers them.
struct NotificationRoutes: Sendable {
    let services: HTTPServices
    let bodies: RequestBodyReader

    func add(to router: some RouterMethods<NimbusRequestContext>) {
        let group = router.group("database/1/:container/:environment/notifications")
        group.route("ws", methods: [.get, .head], use: stream)
        group.route("inbox", methods: [.get, .post], use: inbox)
    }

    /// The stream's URL without an upgrade: the error an upgrade would have got, else a `400`
    /// that says how to connect.
    @Sendable
    private func stream(_ request: Request, context: NimbusRequestContext) async throws -> Response {
        let route = try Self.route(context, channel: .ws)
        let (authentication, _) = try await CallerAuthenticator(accounts: services.accounts)
            .authenticateRecipient(request, body: [], route: route)
        context.outcome.webAuthToken = authentication.webAuthToken
        if let after = request.uri.queryParameters["after"], (Int64(after) ?? -1) < 0 {
            throw NimbusError.badRequest("after must be a sequence number (0 or more), not '\(after.prefix(32))'")
        }
        throw NimbusError.badRequest("the notification stream is a WebSocket: send Connection: Upgrade and Upgrade: websocket")
    }

    @Sendable
    private func inbox(_ request: Request, context: NimbusRequestContext) async throws -> Response {
        let route = try Self.route(context, channel: .inbox)
        var request = request
        let body = try await bodies.bytes(of: &request)
        let (authentication, recipient) = try await CallerAuthenticator(accounts: services.accounts)
            .authenticateRecipient(request, body: body, route: route)
        context.outcome.webAuthToken = authentication.webAuthToken
        let container = ContainerEnvironment(container: route.container, environment: route.environment)
        return JSONResponse.ok(
            try await NotificationInbox(dispatcher: services.dispatcher, user: recipient, container: container).respond(to: body)
        )
    }

    private static func route(_ context: NimbusRequestContext, channel: NotificationsRoute.Channel) throws(NimbusError)
        -> NotificationsRoute
    {
        let environment = context.parameters["environment"] ?? ""
        guard let parsed = Environment(parsing: environment) else {
            throw .badRequest("unknown environment '\(environment.prefix(64))'; use development or production")
        }
        return NotificationsRoute(container: context.parameters.get("container") ?? "", environment: parsed, channel: channel)
    }
}
