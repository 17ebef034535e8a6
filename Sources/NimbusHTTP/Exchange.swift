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

    func response() -> Response {
        var headers: HTTPFields = [
            .contentType: "application/json; charset=UTF-8",
            HeaderName.requestUUID: requestID,
        ]
        if let webAuthToken { headers[HeaderName.webAuthToken] = webAuthToken }
        CORS.addHeaders(to: &headers)
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }
}

/// The CloudKit header names Nimbus reads and writes. HTTP matches them case-insensitively, so
/// Foundation clients' `X-Apple-Cloudkit-Request-Keyid` spelling works too.
enum HeaderName {
    static let keyID = HTTPField.Name("X-Apple-CloudKit-Request-KeyID")!
    static let date = HTTPField.Name("X-Apple-CloudKit-Request-ISO8601Date")!
    static let signature = HTTPField.Name("X-Apple-CloudKit-Request-SignatureV1")!
    static let requestUUID = HTTPField.Name("X-Apple-Request-UUID")!
    static let webAuthToken = HTTPField.Name("X-Apple-CloudKit-Web-Auth-Token")!
}

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

/// The page a 421's `redirectURL` points at.
enum SignInPage {
    static func response() -> Response {
        let html = """
            <!doctype html><html><head><meta charset="utf-8"><title>Sign in to Nimbus</title></head>
            <body><h1>Sign in</h1><p>This Nimbus server issues web auth tokens to users through its
            administrator: <code>nimbus user add NAME --container ID</code> prints one. Pass it as
            <code>ckWebAuthToken</code>.</p></body></html>
            """
        return Response(status: .ok, headers: [.contentType: "text/html; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(string: html)))
    }
}
