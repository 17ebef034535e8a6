//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import HTTPTypes
import Hummingbird

/// The page a 421's `redirectURL` points at.
enum SignInPage {
    /// The sign-in page of the container a database or notification path names
    /// (`/database/1/{container}/...`): the `redirectURL` of a `421`.
    static func url(forRequestPath path: String, base: String) -> String {
        let container = path.split(separator: "/").dropFirst(2).first.map(String.init) ?? ""
        return "\(base)/signin/\(container)"
    }

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
