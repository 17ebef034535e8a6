//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

package import NimbusModel

extension SubscriptionsResponse {
    /// Reads a subscriptions answer (`subscriptions/list`, `lookup`, `modify`) as
    /// ``write(to:options:)`` writes it; an answer without the array has no subscriptions.
    package init(json: JSONValue) throws(NimbusError) {
        let members = try json.object(at: "the response")
        subscriptions = []
        for (index, element) in try (members.optional("subscriptions")?.array(at: "subscriptions") ?? []).enumerated() {
            let path = jsonPath("subscriptions", index)
            if WireError.isError(element) {
                subscriptions.append(.error(WireError(json: element)))
            } else if case .object(let item) = element, item["deleted"] == .bool(true), case .string(let id)? = item["subscriptionID"] {
                subscriptions.append(.deleted(id))
            } else {
                subscriptions.append(.subscription(try Subscription.read(element, at: path)))
            }
        }
    }
}

extension RecordsCountResponse {
    /// Reads a `records/count` answer.
    package init(json: JSONValue) throws(NimbusError) {
        count = Int(try json.object(at: "the response").required("count", at: "").integer(at: "count"))
    }
}
