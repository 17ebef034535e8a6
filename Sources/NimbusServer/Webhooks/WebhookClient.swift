//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import AsyncHTTPClient
import NIOCore
import NIOHTTP1
import NimbusEngine
import NimbusHTTP
import NimbusStore

/// Sends webhook deliveries over HTTP(S) with AsyncHTTPClient: `POST {"notifications": [...]}`
/// with `X-Nimbus-Signature`, answered within 30 seconds or tried again later.
struct WebhookClient: WebhookSender {
    let client: HTTPClient
    let clock: any NimbusClock

    func send(_ entries: [InboxEntry], to url: String, secret: String) async -> WebhookOutcome {
        var body = Array(#"{"notifications":["#.utf8)
        for (index, entry) in entries.enumerated() {
            if index > 0 { body.append(UInt8(ascii: ",")) }
            body += NotificationMessage.bytes(of: entry)
        }
        body += Array("]}".utf8)
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.headers.add(name: "User-Agent", value: "Nimbus-Webhook")
        request.headers.add(
            name: "X-Nimbus-Signature",
            value: WebhookSecret.signature(of: body, timestamp: clock.millisecondsSince1970 / 1000, secret: secret)
        )
        request.body = .bytes(ByteBuffer(bytes: body))
        do {
            let response = try await client.execute(request, timeout: .seconds(30))
            _ = try? await response.body.collect(upTo: 64 * 1024)
            guard (200..<300).contains(response.status.code) else { return .retryLater(reason: "HTTP \(response.status.code)") }
            return .delivered
        } catch {
            return .retryLater(reason: "\(error)")
        }
    }
}
