//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Synchronization

/// What a handler learnt about its request that the middleware around it reports: the
/// operation (for the metrics) and a web auth token to hand back (for the response headers).
///
/// One per request, shared by every copy of its context; written by at most one task at a time.
public final class RequestOutcome: Sendable {
    private struct State {
        var operation: String?
        var webAuthToken: String?
    }

    private let state = Mutex(State())

    init() {}

    /// The CloudKit operation the request asked for (such as `records/modify`), `unknown` for a
    /// database path that names none, or `nil` for requests that are not database operations.
    public var operation: String? {
        get { state.withLock { $0.operation } }
        set { state.withLock { $0.operation = newValue } }
    }

    /// The caller's web auth token as the response returns it (rotated on use).
    public var webAuthToken: String? {
        get { state.withLock { $0.webAuthToken } }
        set { state.withLock { $0.webAuthToken = newValue } }
    }
}
