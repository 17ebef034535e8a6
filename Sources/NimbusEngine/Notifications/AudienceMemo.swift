//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusModel
import NimbusStore

/// A dispatch transaction that reads who could hear of a zone's changes once per batch.
///
/// The events of one batch are mostly of the same few zones (a group commit writes many
/// changes of one zone at once), and who hears of a zone's changes depends only on the zone:
/// its owner's subscriptions, its participants and theirs. Every read sees the transaction's
/// one view of the store, which only this transaction changes, and of its writes only a
/// fired-once subscription's removal changes an answer: it forgets every answer.
final class AudienceMemo: NotificationTransaction {
    private let base: any NotificationTransaction
    private var subscriptionsByKey: [SubscriptionsKey: [(userRecordName: String, subscription: Subscription)]] = [:]
    private var participantsByZone: [ZoneKey: [ZoneParticipant]] = [:]
    private var publicSubscriptionsByKey: [PublicKey: [(userRecordName: String, subscription: Subscription)]] = [:]

    init(_ base: any NotificationTransaction) {
        self.base = base
    }

    func participants(ofZone zoneName: String, of tenant: Tenant) async throws -> [ZoneParticipant] {
        let key = ZoneKey(tenant: tenant, zoneName: zoneName)
        if let known = participantsByZone[key] { return known }
        let found = try await base.participants(ofZone: zoneName, of: tenant)
        participantsByZone[key] = found
        return found
    }

    func subscriptions(
        of users: [String],
        scope: DatabaseScope,
        in container: ContainerEnvironment
    ) async throws -> [(userRecordName: String, subscription: Subscription)] {
        let key = SubscriptionsKey(users: users, scope: scope, container: container)
        if let known = subscriptionsByKey[key] { return known }
        let found = try await base.subscriptions(of: users, scope: scope, in: container)
        subscriptionsByKey[key] = found
        return found
    }

    func publicQuerySubscriptions(
        recordTypes: [String],
        in container: ContainerEnvironment
    ) async throws -> [(userRecordName: String, subscription: Subscription)] {
        let key = PublicKey(recordTypes: recordTypes, container: container)
        if let known = publicSubscriptionsByKey[key] { return known }
        let found = try await base.publicQuerySubscriptions(recordTypes: recordTypes, in: container)
        publicSubscriptionsByKey[key] = found
        return found
    }

    func deleteSubscription(_ id: String, of subscriber: Subscriber) async throws {
        subscriptionsByKey = [:]
        publicSubscriptionsByKey = [:]
        try await base.deleteSubscription(id, of: subscriber)
    }

    // Everything else reads or writes through.

    func claimEvents(limit: Int) async throws -> [ChangeEvent] {
        try await base.claimEvents(limit: limit)
    }

    func rows(of event: ChangeEvent, decodingFields: Bool) async throws -> ChangeEventRows {
        try await base.rows(of: event, decodingFields: decodingFields)
    }

    func deliver(_ drafts: [NotificationDraft], in container: ContainerEnvironment) async throws -> [InboxEntry] {
        try await base.deliver(drafts, in: container)
    }

    func finish(_ events: [ChangeEvent]) async throws {
        try await base.finish(events)
    }

    func announce(_ entries: [InboxEntry], from instance: String) async throws {
        try await base.announce(entries, from: instance)
    }

    func records(named names: [String], inZone zoneName: String, of tenant: Tenant) async throws -> [String: Record] {
        try await base.records(named: names, inZone: zoneName, of: tenant)
    }

    func firstRecord(matching query: Query, inZone zoneName: String, of tenant: Tenant) async throws -> Record? {
        try await base.firstRecord(matching: query, inZone: zoneName, of: tenant)
    }

    private struct SubscriptionsKey: Hashable {
        var users: [String]
        var scope: DatabaseScope
        var container: ContainerEnvironment
    }

    private struct ZoneKey: Hashable {
        var tenant: Tenant
        var zoneName: String
    }

    private struct PublicKey: Hashable {
        var recordTypes: [String]
        var container: ContainerEnvironment
    }
}
