//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Hummingbird

/// Stamps the headers every CloudKit response carries: `X-Apple-Request-UUID`, and the web auth
/// token as the request left it (`X-Apple-CloudKit-Web-Auth-Token`, rotated on use), on
/// successes and failures alike.
struct CloudKitHeadersMiddleware: RouterMiddleware {
    typealias Context = NimbusRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response = try await next(request, context)
        response.headers[HeaderName.requestUUID] = context.requestID
        if let token = context.outcome.webAuthToken { response.headers[HeaderName.webAuthToken] = token }
        return response
    }
}
