//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import HTTPTypes
import Hummingbird
import NimbusModel
import NimbusWire

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The response being built for one database request: status, JSON body and the headers every
/// CloudKit response carries.
struct Exchange {
    let requestID: String
    var status: HTTPResponse.Status = .internalServerError
    var body: [UInt8] = []
    var webAuthToken: String?
    var errorCode: String?
    /// For a `405`: the methods the endpoint takes, for the `Allow` header.
    var allowedMethods: String?

    init(requestID: String) {
        self.requestID = requestID
    }

    /// Makes this a whole-request failure with a CloudKit error dictionary.
    mutating func fail(with error: NimbusError, redirectURL: String?) {
        status = error.code.httpStatus
        errorCode = error.code.serverErrorCode
        let wire = WireError(error, uuid: requestID, redirectURL: redirectURL)
        body = wire.jsonBytes()
    }

    /// The error of a method an endpoint does not take, answered `405` by ``refuseMethod(allowing:)``.
    static let methodRefusal = NimbusError.badRequest("this endpoint does not take this method; the Allow header lists those it takes")

    /// Makes a failure a `405 Method Not Allowed`, listing the methods that are.
    mutating func refuseMethod(allowing methods: String) {
        status = .methodNotAllowed
        allowedMethods = methods
    }

    /// The response as HTTP/1.1 bytes, for a connection the framework does not answer on
    /// (a refused WebSocket upgrade); `closing` adds `Connection: close`.
    func http1Bytes(closing: Bool) -> [UInt8] {
        var headers = headerFields()
        headers[.contentLength] = String(body.count)
        if closing { headers[.connection] = "close" }
        var text = "HTTP/1.1 \(status.code) \(status.reasonPhrase)\r\n"
        for field in headers { text += "\(field.name.rawName): \(field.value)\r\n" }
        text += "\r\n"
        return Array(text.utf8) + body
    }

    func response() -> Response {
        Response(status: status, headers: headerFields(), body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }

    private func headerFields() -> HTTPFields {
        var headers: HTTPFields = [HeaderName.requestUUID: requestID]
        // An empty body (a web courier poll that timed out) is no JSON document.
        if !body.isEmpty { headers[.contentType] = "application/json; charset=UTF-8" }
        if let webAuthToken { headers[HeaderName.webAuthToken] = webAuthToken }
        if let allowedMethods { headers[.allow] = allowedMethods }
        CORS.addHeaders(to: &headers)
        return headers
    }
}
