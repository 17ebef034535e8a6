//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import NimbusModel

/// The body of `subscriptions/lookup`: `{"subscriptions": [{"subscriptionID": "..."}]}`.
public struct SubscriptionsLookupRequest: WireRequest {
    /// The IDs to look up, answered in this order.
    public var subscriptionIDs: [String]

    package init(json: JSONValue) throws(NimbusError) {
        let members = try json.object(at: "the body")
        subscriptionIDs = try members.required("subscriptions", at: "").array(at: "subscriptions").enumerated().map {
            (index, element) throws(NimbusError) in
            let path = jsonPath("subscriptions", index)
            // A bare string is accepted too: some clients send IDs without the wrapper.
            if case .string(let id) = element { return id }
            return try element.object(at: path).required("subscriptionID", at: path).string(at: jsonPath(path, "subscriptionID"))
        }
    }
}

/// The body of `subscriptions/modify`: `{"operations": [{"operationType", "subscription"}]}`.
public struct SubscriptionsModifyRequest: WireRequest {
    /// One operation.
    public struct Operation: Sendable, Hashable {
        /// `create`, `update` or `delete`, lower-cased.
        public var operationType: String
        /// The subscription; for a delete only its `subscriptionID` is read.
        public var subscription: Subscription

        /// One operation: `create`, `update` or `delete`.
        public init(operationType: String, subscription: Subscription) {
            self.operationType = operationType
            self.subscription = subscription
        }
    }

    /// The operations, in order.
    public var operations: [Operation]

    package init(json: JSONValue) throws(NimbusError) {
        let members = try json.object(at: "the body")
        operations = try members.required("operations", at: "").array(at: "operations").enumerated().map {
            (index, element) throws(NimbusError) in
            let path = jsonPath("operations", index)
            let operation = try element.object(at: path)
            let type = try operation.required("operationType", at: path).string(at: jsonPath(path, "operationType")).lowercased()
            let subscriptionPath = jsonPath(path, "subscription")
            let json = try operation.required("subscription", at: path)
            switch type {
            case "create", "update":
                return Operation(operationType: type, subscription: try Subscription.read(json, at: subscriptionPath))
            case "delete":
                let id = try json.object(at: subscriptionPath).required("subscriptionID", at: subscriptionPath)
                    .string(at: jsonPath(subscriptionPath, "subscriptionID"))
                return Operation(operationType: type, subscription: Subscription(subscriptionID: id, kind: .database))
            default:
                throw .badRequest("unknown operationType '\(type)' at \(jsonPath(path, "operationType")): expected create, update or delete")
            }
        }
    }
}

/// Every subscription endpoint's answer: `{"subscriptions": [subscription | error]}`.
public struct SubscriptionsResponse: WireResponse {
    /// One answer per subscription.
    public enum Item: Sendable {
        /// A subscription as stored.
        case subscription(Subscription)
        /// A deleted subscription: `{"subscriptionID", "deleted": true}`.
        case deleted(String)
        /// A per-subscription error.
        case error(WireError)
    }

    /// The answers, in request order.
    public var subscriptions: [Item]

    /// Creates a response.
    public init(subscriptions: [Item]) {
        self.subscriptions = subscriptions
    }

    package func write(to writer: inout JSONWriter, options: WireOptions) {
        writer.beginObject()
        writer.key("subscriptions")
        writer.beginArray()
        for item in subscriptions {
            switch item {
            case .subscription(let subscription):
                subscription.write(to: &writer)
            case .deleted(let id):
                writer.beginObject()
                writer.field("subscriptionID", id)
                writer.key("deleted")
                writer.bool(true)
                writer.endObject()
            case .error(let error):
                error.write(to: &writer, options: options)
            }
        }
        writer.endArray()
        writer.endObject()
    }
}
