//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import AsyncHTTPClient

/// The HTTP client the server calls other services with: webhooks, OpenID Connect issuers and
/// the S3-compatible asset store.
enum OutboundHTTPClient {
    /// One client for the process, as AsyncHTTPClient's shared one, that follows no redirect: a
    /// webhook receiver must not send signed notifications on to another address or over plain
    /// HTTP, an issuer's keys come from the address its discovery names, and a bucket answers
    /// at its own endpoint.
    static let shared: HTTPClient = {
        var configuration = HTTPClient.Configuration.singletonConfiguration
        configuration.redirectConfiguration = .disallow
        return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }()
}
