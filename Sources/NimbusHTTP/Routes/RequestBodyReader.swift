//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Hummingbird
import NimbusModel

/// Reads request bodies up to the configured limit.
struct RequestBodyReader: Sendable {
    /// The largest request body accepted, in bytes.
    let maximumSize: Int

    /// The whole body; the request keeps it, so a later reader gets it again.
    /// - Throws: `.limitExceeded` past the limit.
    func bytes(of request: inout Request) async throws(NimbusError) -> [UInt8] {
        let tooLarge = NimbusError.limitExceeded("request body is larger than the \(maximumSize)-byte limit")
        if let length = request.headers[.contentLength].flatMap({ Int($0) }), length > maximumSize { throw tooLarge }
        do {
            let buffer = try await request.collectBody(upTo: maximumSize)
            return Array(buffer.readableBytesView)
        } catch {
            throw tooLarge
        }
    }

    /// A body, where one is sent, is JSON: the same answer on every endpoint.
    static func checkIsJSON(_ body: [UInt8]) throws(NimbusError) {
        guard body.contains(where: { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }) else { return }
        do {
            _ = try JSONParser.parse(body)
        } catch {
            throw .badRequest("request body is not valid JSON: \(error)")
        }
    }
}
