//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Hummingbird
import NimbusEngine
import NimbusModel

/// Reads which database operation a CloudKit path names and who asks for it, before any
/// database route runs: sets the context's ``NimbusRequestContext/databaseRoute`` and
/// ``NimbusRequestContext/caller``.
///
/// The body is read here (a server-to-server signature covers it) and stays with the request.
struct DatabaseAuthenticationMiddleware: RouterMiddleware {
    typealias Context = NimbusRequestContext

    let service: DatabaseRoute.Service
    let authenticator: CallerAuthenticator
    let bodies: RequestBodyReader

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        context.outcome.operation = "unknown"
        let parameters = context.parameters
        let rest = ["s1", "s2", "s3", "s4"].compactMap { parameters[Substring($0)] }
        let route = try DatabaseRoute(
            service: service,
            container: parameters["container"] ?? "",
            environment: parameters["environment"] ?? "",
            rest: rest[...]
        )
        context.outcome.operation = route.operation.rawValue
        // Before the credentials: a method no operation takes is refused whoever asks.
        guard request.method == .get || request.method == .post else {
            throw MethodRefusal(allowedMethods: DatabaseRoute.allowedMethods)
        }
        var request = request
        let body = try await bodies.bytes(of: &request)
        if route.operation.ignoresBody { try RequestBodyReader.checkIsJSON(body) }
        let authentication = try await authenticator.authenticate(request, body: body, container: route.container, environment: route.environment)
        context.outcome.webAuthToken = authentication.webAuthToken
        var caller = authentication.caller
        caller.deviceID = NotificationsRoute.deviceID(request.headers[HeaderName.deviceID].map { Substring($0) })
        var context = context
        context.databaseRoute = route
        context.caller = caller
        return try await next(request, context)
    }
}
