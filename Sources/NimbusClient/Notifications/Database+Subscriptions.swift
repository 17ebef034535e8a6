//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import NimbusModel
import NimbusWire

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension Database {
    // MARK: - Subscriptions

    /// The signed-in user's subscriptions in this database (`subscriptions/list`).
    public func allSubscriptions() async throws -> [Subscription] {
        try subscriptions(in: try await get("subscriptions/list"))
    }

    /// Saves subscriptions (`subscriptions/modify`, `create`), 200 per request: a subscription of
    /// an existing ID replaces it, so an app can save its subscriptions on every launch.
    ///
    /// A subscription without an ID gets a new UUID before it is sent, so a request whose
    /// response was lost can be sent again without making a second subscription.
    /// - Returns: The subscriptions as saved.
    /// - Throws: for several subscriptions of which some failed, `.partialFailure` with each
    ///   failed one's error.
    @discardableResult
    public func save(subscriptions: [Subscription]) async throws -> [Subscription] {
        var named = subscriptions
        for index in named.indices where named[index].subscriptionID.isEmpty {
            named[index].subscriptionID = UUID().uuidString
        }
        return try await modifySubscriptions(named.map(\.subscriptionID), saving: true) { .save(named[$0]) }
    }

    /// Deletes subscriptions by ID (`subscriptions/modify`, `delete`), 200 per request.
    /// - Throws: `.unknownItem` for an ID the user holds no subscription of; for several IDs of
    ///   which some failed, `.partialFailure` with each failed one's error.
    public func delete(subscriptionIDs: [String]) async throws {
        _ = try await modifySubscriptions(subscriptionIDs, saving: false) { .delete(subscriptionIDs[$0]) }
    }

    /// Sends `subscriptions/modify` requests of at most 200 operations; `operation` makes the
    /// operation on the subscription at a position. Saves (of named
    /// subscriptions) are safe to send again; deletions are not: a lost response's deletion
    /// would come back as `.unknownItem`.
    private func modifySubscriptions(
        _ ids: [String],
        saving: Bool,
        operation: (Int) -> SubscriptionsModifyRequest.Operation
    ) async throws -> [Subscription] {
        var saved: [Subscription] = []
        var failures: [NimbusError.ItemID: NimbusError] = [:]
        for chunk in Array(ids.indices).chunked(by: Self.maximumRecordsPerRequest) {
            let request = SubscriptionsModifyRequest(operations: chunk.map(operation))
            let response = try await post("subscriptions/modify", idempotent: saving) { writer in request.write(to: &writer) }
            let items = try serverAnswer { () throws(NimbusError) in try SubscriptionsResponse(json: .object(response)) }.subscriptions
            for index in items.count..<max(items.count, chunk.count) {
                failures[.subscription(ids[chunk[index]])] = NimbusError(.internalError, "the server did not answer for this subscription")
            }
            for (index, item) in items.enumerated() {
                switch item {
                case .error(let error):
                    guard index < chunk.count else { throw error.nimbusError }
                    failures[.subscription(ids[chunk[index]])] = error.nimbusError
                case .subscription(let subscription):
                    if saving { saved.append(subscription) }
                case .deleted:
                    break
                }
            }
        }
        // One subscription's failure is its own error; several are one partial failure.
        if ids.count == 1, let only = failures.values.first { throw only }
        if let failure = NimbusError.partialFailure(failures, of: ids.count) { throw failure }
        return saved
    }

    private func subscriptions(in response: JSONObject) throws -> [Subscription] {
        try serverAnswer { () throws(NimbusError) in try SubscriptionsResponse(json: .object(response)) }.subscriptions.compactMap { item in
            switch item {
            case .subscription(let subscription): subscription
            case .deleted: nil
            case .error(let error): throw error.nimbusError
            }
        }
    }
}
