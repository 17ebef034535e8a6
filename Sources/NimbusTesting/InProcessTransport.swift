//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import HTTPTypes
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOEmbedded
import NimbusClient
import NimbusHTTP

/// A ``NimbusClient/ClientTransport`` that hands each request straight to a server's request
/// handler in the same process: the whole server (authentication, wire protocol, engine,
/// storage) runs, and no socket is opened.
struct InProcessTransport<Responder: HTTPResponder>: ClientTransport where Responder.Context == NimbusRequestContext {
    let responder: Responder
    let logger: Logger

    func send(_ request: ClientRequest) async throws -> ClientResponse {
        // The responder routes on the path and reads the query; scheme and host do not matter.
        var pathAndQuery = Substring(request.url)
        if let colon = pathAndQuery.firstIndex(of: ":"), pathAndQuery[colon...].hasPrefix("://") {
            let rest = pathAndQuery[pathAndQuery.index(colon, offsetBy: 3)...]
            pathAndQuery = rest.firstIndex(of: "/").map { rest[$0...] } ?? "/"
        }
        var fields = HTTPFields()
        for (name, value) in request.headers {
            if let field = HTTPField.Name(name) { fields.append(HTTPField(name: field, value: value)) }
        }
        fields[.contentLength] = String(request.body.count)
        let head = HTTPRequest(
            method: HTTPRequest.Method(request.method) ?? .get,
            scheme: "http",
            authority: "nimbus.in-process",
            path: String(pathAndQuery),
            headerFields: fields
        )
        let incoming = Request(head: head, body: RequestBody(buffer: ByteBuffer(bytes: request.body)))
        let context = NimbusRequestContext(source: ApplicationRequestContextSource(channel: EmbeddedChannel(), logger: logger))
        let response = try await responder.respond(to: incoming, context: context)
        let collector = BodyCollector()
        try await response.body.write(collector)
        var headers: [String: String] = [:]
        for field in response.headers {
            headers[field.name.canonicalName] = field.value
        }
        return ClientResponse(status: response.status.code, headers: headers, body: collector.bytes.value)
    }
}

/// Collects a response body's bytes.
private struct BodyCollector: ResponseBodyWriter {
    final class Box: @unchecked Sendable {
        var value: [UInt8] = []
    }
    let bytes = Box()

    mutating func write(_ buffer: ByteBuffer) async throws {
        bytes.value += buffer.readableBytesView
    }

    consuming func finish(_ trailingHeaders: HTTPFields?) async throws {}
}
