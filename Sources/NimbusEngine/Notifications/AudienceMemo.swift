//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusModel
import NimbusStore

/// A dispatch transaction that reads who could hear of a batch's changes once for the batch.
///
/// Who hears of a zone's changes depends only on the zone: its owner's subscriptions, its
/// participants and theirs. ``prefetchAudiences(of:known:)`` learns the owners' subscriptions
/// and the zones' participants for every event of a batch at once (with the take, or in two
/// statements), where each event asked for its own (a batch holds one event for each of many
/// zones when many users write at once, and many events of one zone when one does). Every read
/// sees the transaction's one view of the store, which only this transaction changes, and of
/// its writes only a fired-once subscription's removal changes an answer: it forgets the
/// subscriptions it knew.
final class AudienceMemo: NotificationTransaction {
    private let base: any NotificationTransaction
    private var subscriptionsByKey: [SubscriptionsKey: [(userRecordName: String, subscription: Subscription)]] = [:]
    private var participantsByZone: [ZoneKey: [ZoneParticipant]] = [:]
    private var publicSubscriptionsByKey: [PublicKey: [(userRecordName: String, subscription: Subscription)]] = [:]

    init(_ base: any NotificationTransaction) {
        self.base = base
    }

    /// Learns, for the private databases' events, their owners' subscriptions and their zones'
    /// participants: from `known` when the store read them with the events, else in one
    /// statement each per container environment.
    func prefetchAudiences(of events: [ChangeEvent], known: PrivateAudiences?) async throws {
        let byContainer = Dictionary(grouping: events.filter { !$0.tenant.isPublic }) {
            ContainerEnvironment(container: $0.tenant.container, environment: $0.tenant.environment)
        }
        for (container, events) in byContainer {
            let owners = Set(events.map(\.tenant.owner)).sorted()
            let zones = Set(events.map { OwnedZone(owner: $0.tenant.owner, zoneName: $0.zoneName) })
            let subscriptions: [String: [Subscription]]
            let participants: [OwnedZone: [ZoneParticipant]]
            if let known {
                subscriptions = known.subscriptions[container] ?? [:]
                participants = known.participants[container] ?? [:]
            } else {
                let found = try await base.subscriptions(of: owners, scope: .private, in: container)
                subscriptions = Dictionary(grouping: found, by: \.userRecordName).mapValues { $0.map(\.subscription) }
                participants = try await base.participants(ofZones: zones, in: container)
            }
            for owner in owners {
                let key = SubscriptionsKey(users: [owner], scope: .private, container: container)
                subscriptionsByKey[key] = (subscriptions[owner] ?? []).map { (owner, $0) }
            }
            for zone in zones {
                participantsByZone[ZoneKey(container: container, zone: zone)] = participants[zone] ?? []
            }
        }
    }

    func participants(ofZones zones: Set<OwnedZone>, in container: ContainerEnvironment) async throws -> [OwnedZone: [ZoneParticipant]] {
        let unknown = zones.filter { participantsByZone[ZoneKey(container: container, zone: $0)] == nil }
        if !unknown.isEmpty {
            let found = try await base.participants(ofZones: unknown, in: container)
            for zone in unknown { participantsByZone[ZoneKey(container: container, zone: zone)] = found[zone] ?? [] }
        }
        var answer: [OwnedZone: [ZoneParticipant]] = [:]
        for zone in zones {
            if let known = participantsByZone[ZoneKey(container: container, zone: zone)], !known.isEmpty { answer[zone] = known }
        }
        return answer
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

    func takeEvents(limit: Int) async throws -> TakenEvents {
        try await base.takeEvents(limit: limit)
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
        var container: ContainerEnvironment
        var zone: OwnedZone
    }

    private struct PublicKey: Hashable {
        var recordTypes: [String]
        var container: ContainerEnvironment
    }
}
