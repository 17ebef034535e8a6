//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

// Bundle, for the module's resources, is in Foundation only.
import Foundation
import HTTPTypes
import Hummingbird

/// `GET /openapi.json`: the OpenAPI 3.1 description of every endpoint the server serves
/// (`openapi.json` beside this file, the one copy). A test checks that every route is in it,
/// and `scripts/fuzz` checks the server's answers against it.
enum OpenAPIDocument {
    /// The document's bytes, read once from the module's resources.
    static let bytes: [UInt8] = {
        guard let url = Bundle.module.url(forResource: "openapi", withExtension: "json"), let data = try? Data(contentsOf: url) else {
            return Array(#"{"openapi":"3.1.0","info":{"title":"Nimbus","version":"missing"},"paths":{}}"#.utf8)
        }
        return Array(data)
    }()

    static func response() -> Response {
        Response(
            status: .ok,
            headers: [.contentType: "application/json", .cacheControl: "public, max-age=3600"],
            body: .init(byteBuffer: ByteBuffer(bytes: bytes))
        )
    }
}
