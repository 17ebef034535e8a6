//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import HTTPTypes
import Hummingbird
import NimbusEngine
import NimbusModel

/// `GET /webcourier/{token}` (CKWS §7.5): holds the request until a notification is there for
/// the token, then answers it (one JSON object, as the WebSocket sends it) and ends; after
/// `timeout` seconds (30 by default, 1 to 60) it answers an empty 200 and the client polls
/// again. The token in the URL is the credential; browsers poll it directly (CORS).
struct WebCourierPoll {
    let courier: WebCourier
    let requestIDs: RequestIDGenerator

    func respond(to request: Request) async -> Response {
        var exchange = Exchange(requestID: requestIDs.next())
        do throws(NimbusError) {
            guard request.method == .get || request.method == .head else { throw Exchange.methodRefusal }
            let token = String(request.uri.path.dropFirst("/webcourier/".count))
            guard !token.isEmpty, !token.contains("/") else { throw NimbusError(.unknownItem, "unknown web courier token") }
            var seconds = 30
            if let text = request.uri.queryParameters["timeout"] {
                guard let value = Int(text), (1...60).contains(value) else { throw .badRequest("timeout must be 1 to 60 seconds") }
                seconds = value
            }
            let entry = try await courier.poll(token: token, timeout: .seconds(seconds))
            exchange.body = entry.map(NotificationMessage.bytes) ?? []
            exchange.status = .ok
        } catch {
            exchange.fail(with: error, redirectURL: nil)
            if error == Exchange.methodRefusal { exchange.refuseMethod(allowing: "GET, HEAD") }
        }
        return exchange.response()
    }
}
