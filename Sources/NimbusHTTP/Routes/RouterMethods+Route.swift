//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import HTTPTypes
import Hummingbird

extension RouterMethods {
    /// The methods a route that does not take them answers with a `405`. Others (and `OPTIONS`,
    /// which a browser's preflight sends and the CORS middleware answers) reach no route.
    private static var refusableMethods: [HTTPRequest.Method] { [.get, .head, .post, .put, .delete, .patch] }

    /// Adds a route taking `methods` (a `HEAD` is answered as a `GET` without its body), and
    /// answering the others with a `405` in CloudKit's shape whose `Allow` header lists them.
    @discardableResult
    func route(
        _ path: RouterPath,
        methods: [HTTPRequest.Method],
        use handler: @escaping @Sendable (Request, Context) async throws -> Response
    ) -> Self {
        let allowed = methods.map(\.rawValue).joined(separator: ", ")
        for method in Self.refusableMethods {
            if methods.contains(method) {
                on(path, method: method, use: method == .head ? { try await handler($0, $1).createHeadResponse() } : handler)
            } else {
                on(path, method: method) { _, _ -> Response in throw MethodRefusal(allowedMethods: allowed) }
            }
        }
        return self
    }
}
