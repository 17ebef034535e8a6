//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import NimbusModel

extension SubscriptionsModifyRequest: WireRequestBody {
    /// A `subscriptions/modify` request.
    public init(operations: [Operation]) {
        self.operations = operations
    }

    package func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("operations")
        writer.beginArray()
        for operation in operations {
            writer.beginObject()
            writer.field("operationType", operation.operationType)
            writer.key("subscription")
            if operation.operationType == "delete" {
                writer.beginObject()
                writer.field("subscriptionID", operation.subscription.subscriptionID)
                writer.endObject()
            } else {
                operation.subscription.write(to: &writer)
            }
            writer.endObject()
        }
        writer.endArray()
        writer.endObject()
    }
}

extension SubscriptionsModifyRequest.Operation {
    /// Saves a subscription; one of the same ID is replaced.
    public static func save(_ subscription: Subscription) -> Self {
        Self(operationType: "create", subscription: subscription)
    }

    /// Deletes the subscription of this ID.
    public static func delete(_ subscriptionID: String) -> Self {
        Self(operationType: "delete", subscription: Subscription(subscriptionID: subscriptionID, kind: .database))
    }
}
