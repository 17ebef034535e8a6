//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusModel
import NimbusStore

/// What the batch planner needs to apply the sharing rules to one `records/modify` request.
struct SharingContext: Sendable {
    /// The database the request addresses.
    var scope: DatabaseScope
    /// The owner of the zone written.
    var owner: String
    /// Whether the zone is a custom zone (only those can be shared).
    var isCustomZone: Bool
    /// In the shared database: what the caller may reach in the zone.
    var access: ShareAccess?
    /// Which kinds of share the zone has (read only when the batch saves a share).
    var shareKinds = ZoneShareKinds(hasZoneShare: false, hasRecordShares: false)
    /// The users that participant lookups of the batch found, by normalised lookup.
    var users: [LookupInfo: String] = [:]
    /// Makes short GUIDs for new shares.
    var makeShortGUID: @Sendable () -> String
    /// Makes identifiers for new participants.
    var makeParticipantID: @Sendable () -> String
}
