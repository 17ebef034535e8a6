//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import HTTPTypes
import Hummingbird

/// Cross-origin headers, so browser clients (CloudKit JS) can call Nimbus and read its headers.
enum CORS {
    static func addHeaders(to headers: inout HTTPFields) {
        headers[.accessControlAllowOrigin] = "*"
        headers[.accessControlExposeHeaders] = "X-Apple-Request-UUID, X-Apple-CloudKit-Web-Auth-Token"
    }

    static func preflight() -> Response {
        var headers: HTTPFields = [
            .accessControlAllowMethods: "GET, POST, OPTIONS",
            .accessControlAllowHeaders:
                "Content-Type, X-Apple-CloudKit-Request-KeyID, X-Apple-CloudKit-Request-ISO8601Date, X-Apple-CloudKit-Request-SignatureV1",
            .accessControlMaxAge: "600",
        ]
        addHeaders(to: &headers)
        return Response(status: .noContent, headers: headers)
    }
}
