//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import NimbusModel

extension Database {
    // MARK: - Subscriptions

    /// The signed-in user's subscriptions in this database (`subscriptions/list`).
    public func allSubscriptions() async throws -> [Subscription] {
        try subscriptions(in: try await get("subscriptions/list"))
    }

    /// Saves subscriptions (`subscriptions/modify`, `create`): a subscription of an existing ID
    /// replaces it, so an app can save its subscriptions on every launch. An empty ID is
    /// assigned by the server.
    /// - Returns: The subscriptions as saved.
    @discardableResult
    public func save(subscriptions: [Subscription]) async throws -> [Subscription] {
        let response = try await post("subscriptions/modify", idempotent: true) { writer in
            writer.beginObject()
            writer.key("operations")
            writer.beginArray()
            for subscription in subscriptions {
                writer.beginObject()
                writer.field("operationType", "create")
                writer.key("subscription")
                subscription.write(to: &writer)
                writer.endObject()
            }
            writer.endArray()
            writer.endObject()
        }
        return try self.subscriptions(in: response)
    }

    /// Deletes subscriptions by ID (`subscriptions/modify`, `delete`).
    /// - Throws: `.unknownItem` for an ID the user holds no subscription of.
    public func delete(subscriptionIDs: [String]) async throws {
        let response = try await post("subscriptions/modify", idempotent: false) { writer in
            writer.beginObject()
            writer.key("operations")
            writer.beginArray()
            for id in subscriptionIDs {
                writer.beginObject()
                writer.field("operationType", "delete")
                writer.key("subscription")
                writer.beginObject()
                writer.field("subscriptionID", id)
                writer.endObject()
                writer.endObject()
            }
            writer.endArray()
            writer.endObject()
        }
        guard case .array(let items)? = response["subscriptions"] else { return }
        for item in items where RecordJSON.isError(item) { throw RecordJSON.error(item) }
    }

    private func subscriptions(in response: JSONObject) throws -> [Subscription] {
        guard case .array(let items)? = response["subscriptions"] else { return [] }
        return try items.enumerated().map { index, item in
            if RecordJSON.isError(item) { throw RecordJSON.error(item) }
            return try Subscription.read(item, at: "subscriptions[\(index)]")
        }
    }
}
