//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import HTTPTypes
import Hummingbird

/// A successful answer with a JSON body written by the wire layer.
enum JSONResponse {
    static let contentType = "application/json; charset=UTF-8"

    /// A `200` with `bytes` as its body; an empty body (a web courier poll that timed out) is no
    /// JSON document and has no content type.
    static func ok(_ bytes: [UInt8]) -> Response {
        let headers: HTTPFields = bytes.isEmpty ? [:] : [.contentType: contentType]
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }
}
