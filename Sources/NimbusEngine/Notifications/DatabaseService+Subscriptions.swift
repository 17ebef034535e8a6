//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import NimbusModel
import NimbusStore

/// A change `subscriptions/modify` asks for.
public enum SubscriptionOperation: Sendable, Hashable {
    /// Saves a subscription; one of the same ID is replaced (clients save theirs on every launch).
    case create(Subscription)
    /// Replaces an existing subscription.
    case update(Subscription)
    /// Removes a subscription by ID.
    case delete(String)
}

/// What became of one ``SubscriptionOperation``.
public enum SubscriptionResult: Sendable {
    /// Saved, as stored (with its server-assigned ID if it had none).
    case saved(Subscription)
    /// Removed.
    case deleted(String)
    /// Not applied, and why.
    case failed(subscriptionID: String, NimbusError)
}

extension DatabaseService {
    /// The most subscriptions one user may hold in one database.
    public static let maximumSubscriptions = 1_000

    /// The caller's subscriptions in the database of `access`.
    public func subscriptions(access: DatabaseAccess) async throws(NimbusError) -> [Subscription] {
        let subscriber = try subscriber(access)
        return try await store { try await subscriptions.subscriptions(of: subscriber) }.map { reported($0, access: access) }
    }

    /// The caller's subscriptions of these IDs, in request order; missing ones as `NOT_FOUND`.
    public func lookupSubscriptions(_ ids: [String], access: DatabaseAccess) async throws(NimbusError) -> [Result<Subscription, NimbusError>] {
        guard ids.count <= Self.maximumOperations else {
            throw .limitExceeded("a request may look up at most \(Self.maximumOperations) subscriptions, this one asks for \(ids.count)")
        }
        let subscriber = try subscriber(access)
        let found = try await store { try await subscriptions.subscriptions(withIDs: ids, of: subscriber) }
        return ids.map { id in
            guard let subscription = found[id] else { return .failure(Self.subscriptionNotFound) }
            return .success(reported(subscription, access: access))
        }
    }

    /// Applies `subscriptions/modify`. Each operation is checked on its own; the valid ones are
    /// written in one transaction.
    public func modifySubscriptions(_ operations: [SubscriptionOperation], access: DatabaseAccess) async throws(NimbusError)
        -> [SubscriptionResult]
    {
        guard operations.count <= Self.maximumOperations else {
            throw .limitExceeded("a request may have at most \(Self.maximumOperations) operations, this one has \(operations.count)")
        }
        let subscriber = try subscriber(access)
        let ids = operations.map(\.subscriptionID).filter { !$0.isEmpty }
        guard Set(ids.map { NameKey($0) }).count == ids.count else { throw .badRequest("a request may have only one operation per subscription") }
        let existing = try await store { try await subscriptions.subscriptions(of: subscriber) }
        var held = Set(existing.map(\.subscriptionID))

        var results: [SubscriptionResult] = []
        var changes: [SubscriptionChange] = []
        var changeIndexes: [Int] = []
        for operation in operations {
            do throws(NimbusError) {
                switch operation {
                case .create(let subscription), .update(let subscription):
                    var resolved = try await resolve(subscription, access: access)
                    if case .update = operation, !held.contains(resolved.subscriptionID) { throw Self.subscriptionNotFound }
                    if resolved.subscriptionID.isEmpty { resolved.subscriptionID = makeRecordName() }
                    if !held.contains(resolved.subscriptionID), held.count >= Self.maximumSubscriptions {
                        throw NimbusError(.quotaExceeded, "a user may hold at most \(Self.maximumSubscriptions) subscriptions per database")
                    }
                    held.insert(resolved.subscriptionID)
                    changeIndexes.append(results.count)
                    changes.append(.save(resolved))
                    results.append(.saved(reported(resolved, access: access)))
                case .delete(let id):
                    guard held.contains(id) else { throw Self.subscriptionNotFound }
                    held.remove(id)
                    changeIndexes.append(results.count)
                    changes.append(.delete(id))
                    results.append(.deleted(id))
                }
            } catch {
                results.append(.failed(subscriptionID: operation.subscriptionID, error))
            }
        }
        let applied = try await store { try await subscriptions.modifySubscriptions(changes, of: subscriber) }
        // A delete that lost a race with another request's delete found nothing.
        for (index, found) in zip(changeIndexes, applied) where !found {
            if case .deleted(let id) = results[index] { results[index] = .failed(subscriptionID: id, Self.subscriptionNotFound) }
        }
        return results
    }

    static let subscriptionNotFound = NimbusError(.unknownItem, "Subscription not found")

    /// Subscriptions belong to a signed-in user, or to a server-to-server key in the public
    /// database (the only one a key reads); the key's notifications go to its own inbox.
    func subscriber(_ access: DatabaseAccess) throws(NimbusError) -> Subscriber {
        let caller = access.caller
        guard let recipient = caller.notificationRecipient, caller.kind == .user || access.scope == .public else {
            throw NimbusError(
                .authenticationRequired,
                "subscriptions need a signed-in user (ckWebAuthToken), or a server-to-server key in the public database"
            )
        }
        return Subscriber(container: caller.container, environment: caller.environment, scope: access.scope, userRecordName: recipient)
    }

    /// Checks a subscription against the database and names its zone's real owner.
    private func resolve(_ subscription: Subscription, access: DatabaseAccess) async throws(NimbusError) -> Subscription {
        var resolved = subscription
        switch subscription.kind {
        case .zone(let zoneID):
            // A key watches the public database's zone for a backend (beyond CloudKit, which
            // has no zone subscriptions there); a user's devices use query subscriptions.
            guard access.scope != .public || access.caller.kind == .serverKey else {
                throw .badRequest("zone subscriptions are not supported in the public database; use a query subscription")
            }
            resolved.kind = .zone(try await resolvedZone(zoneID, access: access))
        case .database:
            guard access.scope != .public else {
                throw .badRequest("database subscriptions are not supported in the public database; use a query subscription")
            }
        case .query(let query, let zoneID, let firesOn, let firesOnce):
            try Self.checkSize(of: query)
            if let problem = FilterEvaluator.unsupported(query.filters) { throw .badRequest(problem) }
            if let violation = RecordNameRule.violation(in: query.recordType, what: "query.recordType") { throw .badRequest(violation) }
            let zone: ZoneID? = try await zoneID.asyncMap { (zoneID) throws(NimbusError) in try await resolvedZone(zoneID, access: access) }
            resolved.kind = .query(query, zoneID: zone, firesOn: firesOn, firesOnce: firesOnce)
        }
        return resolved
    }

    private func resolvedZone(_ zoneID: ZoneID, access: DatabaseAccess) async throws(NimbusError) -> ZoneID {
        // In the shared database the zone must be one the caller takes part in; elsewhere it
        // must exist. Either way the same error as for records: nothing about other zones leaks.
        let target = try await target(zone: zoneID, access: access)
        if access.scope != .shared, target.zoneName != ZoneID.defaultZoneName {
            guard try await store({ try await records.zone(named: target.zoneName, of: target.tenant) }) != nil else {
                throw NimbusError.zoneNotFound
            }
        }
        return ZoneID(zoneName: target.zoneName, ownerRecordName: target.tenant.owner)
    }

    /// A stored subscription as the caller sees it: zones with the owner the caller would use.
    private func reported(_ subscription: Subscription, access: DatabaseAccess) -> Subscription {
        var reported = subscription
        func zone(_ zoneID: ZoneID) -> ZoneID {
            access.scope == .public ? ZoneID(zoneName: zoneID.zoneName, ownerRecordName: "_defaultOwner") : zoneID
        }
        switch subscription.kind {
        case .zone(let zoneID): reported.kind = .zone(zone(zoneID))
        case .query(let query, let zoneID, let firesOn, let firesOnce):
            reported.kind = .query(query, zoneID: zoneID.map(zone), firesOn: firesOn, firesOnce: firesOnce)
        case .database: break
        }
        return reported
    }
}

extension SubscriptionOperation {
    /// The ID the operation names (empty for a create that leaves it to the server).
    public var subscriptionID: String {
        switch self {
        case .create(let subscription), .update(let subscription): subscription.subscriptionID
        case .delete(let id): id
        }
    }
}

extension Optional {
    fileprivate func asyncMap<T>(_ transform: (Wrapped) async throws(NimbusError) -> T) async throws(NimbusError) -> T? {
        guard let self else { return nil }
        return try await transform(self)
    }
}
