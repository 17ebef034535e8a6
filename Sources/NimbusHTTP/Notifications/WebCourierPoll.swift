//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Hummingbird
import NimbusEngine
import NimbusModel

/// The long poll of CloudKit JS's web courier: `GET /webcourier/{token}?timeout=N` answers with
/// the next notification of the token's user, or an empty body when none came in time.
struct WebCourierPoll {
    let courier: WebCourier

    func respond(to request: Request, token: String) async throws(NimbusError) -> [UInt8] {
        guard !token.isEmpty else { throw NimbusError(.unknownItem, "unknown web courier token") }
        var seconds = 30
        if let text = request.uri.queryParameters["timeout"] {
            guard let value = Int(text), (1...60).contains(value) else { throw .badRequest("timeout must be 1 to 60 seconds") }
            seconds = value
        }
        let entry = try await courier.poll(token: token, timeout: .seconds(seconds))
        return entry.map(NotificationMessage.bytes) ?? []
    }
}
