//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusEngine
import NimbusModel

extension DatabaseEndpoints {
    /// `tokens/create` and `tokens/register` (CKWS §7.4): both answer
    /// `{"apnsEnvironment", "apnsToken", "webcourierURL"}`.
    func pushToken(register: Bool) async throws(NimbusError) -> [UInt8] {
        let members: JSONObject
        do {
            members = body.isEmpty ? [:] : try JSONParser.parse(body).object(at: "the body")
        } catch let error as NimbusError {
            throw error
        } catch {
            throw .badRequest("request body is not valid JSON: \(error)")
        }
        let environment = try members.optional("apnsEnvironment")?.string(at: "apnsEnvironment").lowercased() ?? "production"
        guard environment == "development" || environment == "production" else {
            throw .badRequest("apnsEnvironment must be development or production, not '\(environment)'")
        }
        let apnsToken: String
        if register {
            apnsToken = try members.required("apnsToken", at: "").string(at: "apnsToken")
            try await courier.register(apnsToken: apnsToken, apnsEnvironment: environment, caller: access.caller)
        } else {
            apnsToken = try await courier.createToken(apnsEnvironment: environment, caller: access.caller)
        }
        var writer = JSONWriter()
        writer.beginObject()
        writer.field("apnsEnvironment", environment)
        writer.field("apnsToken", apnsToken)
        // A registered APNs token has no courier; a created one polls at this URL.
        writer.field("webcourierURL", register ? "" : "\(publicBaseURL)/webcourier/\(apnsToken)")
        writer.endObject()
        return writer.bytes
    }
}
