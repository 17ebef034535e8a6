//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Hummingbird
import NimbusEngine
import NimbusModel

/// The CloudKit Web Services database operations, `/database/1/{container}/{environment}/{database}/{operation}`,
/// and the variants clients send: push tokens under no database (or under `/device/1/`),
/// `subscriptions/lookup` under none, and three-segment operations (`users/lookup/email`).
///
/// The router matches the shape of the path; ``DatabaseRoute`` reads its segments into the
/// closed set of operations, which ``DatabaseEndpoints`` answers with an exhaustive switch.
struct DatabaseRoutes: Sendable {
    let services: HTTPServices
    let bodies: RequestBodyReader
    let metrics: HTTPMetrics
    let publicAddress: PublicAddress

    /// Paths after `/database/1/{container}/{environment}`: two to four segments, read by
    /// ``DatabaseRoute/init(service:container:environment:rest:)``.
    private static let shapes = ["/:s1/:s2", "/:s1/:s2/:s3", "/:s1/:s2/:s3/:s4"]

    func add(to router: some RouterMethods<NimbusRequestContext>) {
        let authenticator = CallerAuthenticator(accounts: services.accounts)
        let database = router.group("database/1/:container/:environment")
            .add(middleware: DatabaseAuthenticationMiddleware(service: .database, authenticator: authenticator, bodies: bodies))
        for shape in Self.shapes {
            database.route(RouterPath(shape), methods: [.get, .post], use: respond)
        }
        router.group("device/1/:container/:environment")
            .add(middleware: DatabaseAuthenticationMiddleware(service: .device, authenticator: authenticator, bodies: bodies))
            .route("/:s1/:s2", methods: [.get, .post], use: respond)
    }

    @Sendable
    private func respond(_ request: Request, context: NimbusRequestContext) async throws -> Response {
        guard let route = context.databaseRoute, let caller = context.caller else {
            throw NimbusError(.internalError, "a database route ran without authentication")
        }
        let body = try await request.body.collect(upTo: bodies.maximumSize)
        let endpoint = DatabaseEndpoints(
            database: services.database,
            accounts: services.accounts,
            assets: services.assets,
            support: services.support,
            courier: services.courier,
            publicBaseURL: publicAddress.value,
            access: DatabaseAccess(caller: caller, scope: route.scope),
            body: Array(body.readableBytesView),
            metrics: metrics,
            operationName: route.operation.rawValue
        )
        return JSONResponse.ok(try await endpoint.respond(to: route.operation))
    }
}
