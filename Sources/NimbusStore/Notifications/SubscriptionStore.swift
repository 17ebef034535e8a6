//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import NimbusModel

/// Whose subscriptions: one user's, in one database of a container environment.
public struct Subscriber: Sendable, Hashable {
    /// The container.
    public var container: String
    /// The environment.
    public var environment: Environment
    /// The database the subscriptions watch.
    public var scope: DatabaseScope
    /// The subscribing user.
    public var userRecordName: String

    /// Creates a subscriber.
    public init(container: String, environment: Environment, scope: DatabaseScope, userRecordName: String) {
        self.container = container
        self.environment = environment
        self.scope = scope
        self.userRecordName = userRecordName
    }
}

/// A change to a subscriber's subscriptions.
public enum SubscriptionChange: Sendable, Hashable {
    /// Creates or replaces the subscription of the same ID.
    case save(Subscription)
    /// Removes the subscription of this ID.
    case delete(String)
}

/// Keeps subscriptions. Zone IDs in stored subscriptions name their real owner.
public protocol SubscriptionStore: Sendable {
    /// Every subscription of the subscriber, by ID.
    func subscriptions(of subscriber: Subscriber) async throws -> [Subscription]

    /// The subscriber's subscriptions of these IDs; absent ones are left out.
    func subscriptions(withIDs ids: [String], of subscriber: Subscriber) async throws -> [String: Subscription]

    /// Applies the changes in one transaction; returns, per change, whether it found its
    /// subscription (a delete of an absent one finds nothing).
    func modifySubscriptions(_ changes: [SubscriptionChange], of subscriber: Subscriber) async throws -> [Bool]
}
