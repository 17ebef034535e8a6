//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Crypto
import NimbusModel
import NimbusStore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A participant's position in their view of one owner's zone.
///
/// The shares the participant followed since they began share one strand; a share accepted
/// later gets its own strand that starts from the beginning, until it catches up and the two
/// merge. The shares a position follows are how the server notices that the participant lost
/// one of them.
struct SharedZonePosition: Hashable {
    var incarnation: Int64
    var strands: [ShareFeedStrand]

    /// Every share the position follows; ``Share/zoneShareName`` for a zone share.
    var followedShares: Set<String> {
        Set(strands.flatMap { $0.shareNames ?? [Share.zoneShareName] })
    }

    /// The position after a page that every strand read through `through`, in a zone whose
    /// counter was `zoneCounter` (the start of strands begun by that page).
    func advanced(through: Int64, zoneCounter: Int64) -> SharedZonePosition {
        var merged: [ShareFeedStrand] = []
        for strand in strands {
            let after = max(strand.after, through)
            // The initial-sync mark only matters until the strand has caught up with it.
            let mark = strand.initialSyncThrough ?? zoneCounter
            let next = ShareFeedStrand(shareNames: strand.shareNames, after: after, initialSyncThrough: mark > after ? mark : 0)
            if let index = merged.firstIndex(where: {
                $0.after == next.after && $0.initialSyncThrough == next.initialSyncThrough && $0.shareNames != nil && next.shareNames != nil
            }) {
                merged[index].shareNames = ((merged[index].shareNames ?? []) + (next.shareNames ?? [])).sorted()
            } else {
                merged.append(next)
            }
        }
        return SharedZonePosition(incarnation: incarnation, strands: merged)
    }
}

extension SyncTokens {
    /// A participant's zone token: the strands of their position, sealed for their view of the zone.
    func sharedZoneToken(_ position: SharedZonePosition, scope: ZoneScope) -> String {
        var writer = JSONWriter()
        writer.beginArray()
        writer.string("zs1")
        writer.integer(position.incarnation)
        for strand in position.strands {
            writer.beginArray()
            writer.integer(strand.after)
            writer.integer(strand.initialSyncThrough ?? 0)
            if let names = strand.shareNames {
                writer.beginArray()
                for name in names { writer.string(name) }
                writer.endArray()
            } else {
                writer.string(Share.zoneShareName)
            }
            writer.endArray()
        }
        writer.endArray()
        return sealer.seal(Data(writer.bytes), scope: scope.text)
    }

    /// The position a participant's zone token holds.
    /// - Throws: `.badRequest` if the token was not issued for this participant's view of the zone.
    func sharedZonePosition(_ token: String, scope: ZoneScope) throws(NimbusError) -> SharedZonePosition {
        let elements = try payload(token, scope: scope.text, version: "zs1", family: "zone")
        guard elements.count >= 2, case .integer(let incarnation) = elements[1] else { throw Self.foreign("zone") }
        var strands: [ShareFeedStrand] = []
        for element in elements.dropFirst(2) {
            guard case .array(let parts) = element, parts.count == 3, case .integer(let after) = parts[0],
                case .integer(let mark) = parts[1]
            else { throw Self.foreign("zone") }
            switch parts[2] {
            case .string(Share.zoneShareName):
                strands.append(ShareFeedStrand(shareNames: nil, after: after, initialSyncThrough: mark))
            case .array(let names):
                let names = names.compactMap { name -> String? in if case .string(let name) = name { name } else { nil } }
                strands.append(ShareFeedStrand(shareNames: names, after: after, initialSyncThrough: mark))
            default:
                throw Self.foreign("zone")
            }
        }
        return SharedZonePosition(incarnation: incarnation, strands: strands)
    }

    /// A participant's database token: what they last learnt of each zone shared with them.
    func sharedDatabaseToken(_ known: [ZoneID: String], scope: String) -> String {
        var writer = JSONWriter()
        writer.beginArray()
        writer.string("ds1")
        for (zoneID, state) in known.sorted(by: { ($0.key.ownerRecordName, $0.key.zoneName) < ($1.key.ownerRecordName, $1.key.zoneName) }) {
            writer.beginArray()
            writer.string(zoneID.ownerRecordName)
            writer.string(zoneID.zoneName)
            writer.string(state)
            writer.endArray()
        }
        writer.endArray()
        return sealer.seal(Data(writer.bytes), scope: scope)
    }

    /// What a participant's database token says they know of each shared zone.
    /// - Throws: `.badRequest` if the token was not issued for this participant's shared database.
    func sharedDatabasePosition(_ token: String, scope: String) throws(NimbusError) -> [ZoneID: String] {
        var known: [ZoneID: String] = [:]
        for element in try payload(token, scope: scope, version: "ds1", family: "database").dropFirst() {
            guard case .array(let parts) = element, parts.count == 3, case .string(let owner) = parts[0],
                case .string(let zoneName) = parts[1], case .string(let state) = parts[2]
            else { throw Self.foreign("database") }
            known[ZoneID(zoneName: zoneName, ownerRecordName: owner)] = state
        }
        return known
    }

    /// How a shared zone stands for its participant, compared for equality only: its
    /// incarnation, its latest change they may see, and which of its shares they follow.
    static func sharedZoneStamp(_ state: SharedZoneState) -> String {
        let shares = state.shareNames.sorted().joined(separator: "\u{0}")
        let digest = SHA256.hash(data: Data(shares.utf8)).prefix(8).map { byte in
            let hex = String(byte, radix: 16)
            return hex.count == 1 ? "0" + hex : hex
        }.joined()
        return "\(state.zone.incarnation).\(state.latestChange).\(digest)"
    }

    private func payload(_ token: String, scope: String, version: String, family: String) throws(NimbusError) -> [JSONValue] {
        guard let payload = sealer.open(token, scope: scope), case .array(let elements)? = try? JSONParser.parse(Array(payload)),
            case .string(version)? = elements.first
        else { throw Self.foreign(family) }
        return elements
    }
}
