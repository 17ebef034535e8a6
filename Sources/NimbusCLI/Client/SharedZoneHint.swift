//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Foundation
import NimbusClient
import NimbusModel
import Synchronization

/// What to say when a zone named in the shared database without `--owner` is not found: the
/// shared database holds zones of several owners, so a name alone does not say whose. When
/// exactly one owner shares a zone of that name, the hint names them.
enum SharedZoneHint {
    private struct State {
        var database: Database?
        var names: [String] = []
    }
    private static let state = Mutex(State())

    /// Notes the shared database a command opened without `--owner`.
    static func watch(_ database: Database) {
        state.withLock { $0.database = database }
    }

    /// Notes a zone name the command asked for without an owner.
    static func note(_ zoneName: String) {
        state.withLock { $0.names.append(zoneName) }
    }

    /// The hint for a `ZONE_NOT_FOUND`, if the command used the shared database without an owner.
    static func hint() async -> String? {
        let (database, names) = state.withLock { ($0.database, $0.names) }
        guard let database, let name = names.last else { return nil }
        guard let zones = try? await database.allZones() else { return nil }
        let owners = Set(zones.filter { $0.zoneName == name }.map(\.ownerRecordName)).sorted()
        switch owners.count {
        case 0: return "no zone named \(name) is shared with you (nimbus zone list --scope shared lists those that are)"
        case 1: return "zone \(name) is shared with you by \(owners[0]): pass --owner \(owners[0])"
        default: return "several people share a zone named \(name) with you: pass --owner with one of \(owners.joined(separator: ", "))"
        }
    }
}
