//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusModel
import NimbusStore

/// What one participant may reach in one owner's zone through their shared database.
///
/// Resolved once per request from the caller's accepted shares in the zone; every read and
/// write of the request is checked against it. A record outside it answers exactly as a record
/// that does not exist.
struct ShareAccess: Sendable {
    /// The caller's accepted shares in the zone, by share record name.
    /// Keyed by bytes (``NameKey``): two spellings of one name are two shares.
    let participations: [NameKey: Participation]

    init(_ participations: [Participation]) {
        self.participations = Dictionary(participations.map { (NameKey($0.shareName), $0) }) { first, _ in first }
    }

    /// The participation that covers a record: the zone share's, or that of the share whose
    /// hierarchy holds it.
    func participation(for record: Record) -> Participation? {
        if let zoneShare = participations[NameKey(Share.zoneShareName)] { return zoneShare }
        return record.containingShare.flatMap { participations[NameKey($0)] }
    }

    /// The participation in a share by its record name (the zone share covers its own record).
    func participation(inShare shareName: String) -> Participation? {
        participations[NameKey(shareName)] ?? participations[NameKey(Share.zoneShareName)]
    }

    /// The shares whose hierarchies the caller may read; `nil` when a zone share opens the
    /// whole zone.
    var readableShares: [String]? {
        participations[NameKey(Share.zoneShareName)] == nil ? participations.keys.sorted().map(\.string) : nil
    }

    /// Whether the caller may read a record.
    func canRead(_ record: Record) -> Bool { participation(for: record) != nil }

    /// Whether the caller may change, delete and add children to a record.
    func canWrite(_ record: Record) -> Bool { participation(for: record)?.canWrite ?? false }
}

extension Participation {
    /// Whether the participant may change shared records: `READ_WRITE`, or an administrator.
    var canWrite: Bool { permission == .readWrite || role == .administrator }
}
