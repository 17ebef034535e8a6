//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import NimbusModel

/// Events a dispatch transaction took out of the outbox, and what the store read with them.
public struct TakenEvents: Sendable {
    /// Oldest first.
    public var events: [ChangeEvent]
    /// Who could hear of the private databases' events, read in the statement that took them;
    /// `nil` when the store did not read it there.
    public var audiences: PrivateAudiences?

    /// Creates the result of a take.
    public init(events: [ChangeEvent], audiences: PrivateAudiences? = nil) {
        self.events = events
        self.audiences = audiences
    }
}

/// For the events of private databases: every private subscription of their owners, and every
/// participant of their zones (as ``NotificationTransaction/participants(ofZones:in:)`` lists
/// them). An owner or zone with none is absent.
public struct PrivateAudiences: Sendable {
    /// An owner's private subscription.
    public struct OwnerSubscription: Sendable {
        public var container: ContainerEnvironment
        public var owner: String
        public var subscription: Subscription

        /// Creates an owner's subscription.
        public init(container: ContainerEnvironment, owner: String, subscription: Subscription) {
            self.container = container
            self.owner = owner
            self.subscription = subscription
        }
    }

    /// A participant of one zone.
    public struct Participation: Sendable {
        public var container: ContainerEnvironment
        public var zone: OwnedZone
        public var participant: ZoneParticipant

        /// Creates a zone's participant.
        public init(container: ContainerEnvironment, zone: OwnedZone, participant: ZoneParticipant) {
            self.container = container
            self.zone = zone
            self.participant = participant
        }
    }

    public var subscriptions: [OwnerSubscription]
    public var participants: [Participation]

    /// Creates the audiences read with a take.
    public init(subscriptions: [OwnerSubscription], participants: [Participation]) {
        self.subscriptions = subscriptions
        self.participants = participants
    }
}
