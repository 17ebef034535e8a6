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
/// them), by container environment. An owner or zone with none is absent.
public struct PrivateAudiences: Sendable {
    /// Each owner's private subscriptions.
    public var subscriptions: [ContainerEnvironment: [String: [Subscription]]]
    /// Each zone's participants.
    public var participants: [ContainerEnvironment: [OwnedZone: [ZoneParticipant]]]

    /// Creates the audiences read with a take.
    public init(
        subscriptions: [ContainerEnvironment: [String: [Subscription]]] = [:],
        participants: [ContainerEnvironment: [OwnedZone: [ZoneParticipant]]] = [:]
    ) {
        self.subscriptions = subscriptions
        self.participants = participants
    }
}
