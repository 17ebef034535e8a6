//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import Hummingbird
import NIOCore
public import NimbusEngine

/// What Nimbus knows of a request as it passes through the router: its CloudKit request ID and,
/// once authenticated, who sent it.
///
/// Middleware and handlers get the context by value, so what must outlive a handler (the
/// operation's name for the metrics, a rotated web auth token for the response headers) is
/// kept in ``outcome``, which every copy shares.
public struct NimbusRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The `X-Apple-Request-UUID` of the request, which its response and any error carry.
    public let requestID: String
    /// The authenticated caller, set on the routes that need one.
    public var caller: Caller?
    /// The database operation a CloudKit path names, set with ``caller`` on database routes.
    public var databaseRoute: DatabaseRoute?
    /// What the request turned out to be, read by the middleware once the handler returns.
    public let outcome: RequestOutcome
    /// The connection the request came on.
    private let channel: any Channel

    /// The network address of the client (the peer of the connection), for throttling sign-in
    /// attempts. Behind a reverse proxy it is the proxy's.
    public var clientAddress: String? { channel.remoteAddress?.ipAddress }

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        channel = source.channel
        requestID = RequestIDGenerator.shared.next()
        outcome = RequestOutcome()
    }
}
