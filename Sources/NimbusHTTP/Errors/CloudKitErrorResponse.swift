//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import HTTPTypes
import Hummingbird
import NimbusModel
import NimbusWire

/// A failure answered in CloudKit's shape: the HTTP status of its code and an error dictionary
/// (`uuid`, `serverErrorCode`, `reason`, and `redirectURL` for a `421`).
struct CloudKitErrorResponse {
    let error: NimbusError
    let requestID: String
    /// Where to sign in, for an `AUTHENTICATION_REQUIRED` failure.
    var redirectURL: String?
    /// For a `405`: the methods the endpoint takes, for the `Allow` header.
    var allowedMethods: String?

    /// The error of a method an endpoint does not take, answered `405`.
    static let methodRefusal = NimbusError.badRequest("this endpoint does not take this method; the Allow header lists those it takes")

    var status: HTTPResponse.Status { allowedMethods == nil ? error.code.httpStatus : .methodNotAllowed }

    var body: [UInt8] { WireError(error, uuid: requestID, redirectURL: redirectURL).jsonBytes() }

    func response() -> Response {
        var headers: HTTPFields = [.contentType: JSONResponse.contentType]
        if let allowedMethods { headers[.allow] = allowedMethods }
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }

    /// The response as HTTP/1.1 bytes with `Connection: close`, for a connection the router does
    /// not answer on (a refused WebSocket upgrade).
    func http1Bytes() -> [UInt8] {
        let body = body
        var text = "HTTP/1.1 \(status.code) \(status.reasonPhrase)\r\n"
        text += "\(HeaderName.requestUUID.rawName): \(requestID)\r\n"
        text += "Content-Type: \(JSONResponse.contentType)\r\n"
        text += "Content-Length: \(body.count)\r\nConnection: close\r\n\r\n"
        return Array(text.utf8) + body
    }
}
