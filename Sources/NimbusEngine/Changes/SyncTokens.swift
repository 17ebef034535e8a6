//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusModel
import NimbusStore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Seals and opens the sync tokens of the change feeds.
///
/// A zone token holds the zone's incarnation, the counter of the last change the client has and,
/// during a sync from scratch, the counter at which that sync began;
/// a database token holds the database counter. Both are sealed with an HMAC whose scope names
/// the family (zone or database), the container, environment, database, owner and zone, so a
/// token only opens where it was issued: a forged token, another zone's, or a zone token given
/// where a database token belongs fails to open instead of reading other data.
struct SyncTokens {
    let sealer: TokenSealer

    /// Where a zone token belongs: one zone of one database.
    struct ZoneScope {
        var container: String
        var environment: Environment
        var database: DatabaseScope
        var zoneID: ZoneID
        /// In the shared database: the participant whose view of the zone the token follows.
        var reader: String? = nil

        var text: String {
            let base = "zone|\(container)|\(environment.rawValue)|\(database.rawValue)|\(zoneID.ownerRecordName)|\(zoneID.zoneName)"
            return reader.map { base + "|" + $0 } ?? base
        }
    }

    func zoneToken(_ position: ZoneChangePosition, scope: ZoneScope) -> String {
        // The initial-sync mark only matters until the client has caught up with it.
        let mark = position.initialSyncThrough > position.counter ? position.initialSyncThrough : 0
        return sealer.seal(Data("z1.\(position.incarnation).\(position.counter).\(mark)".utf8), scope: scope.text)
    }

    /// The position a zone token holds.
    /// - Throws: `.badRequest` if the token was not issued for this zone.
    func zonePosition(_ token: String, scope: ZoneScope) throws(NimbusError) -> ZoneChangePosition {
        let fields = try open(token, scope: scope.text, version: "z1", family: "zone")
        guard fields.count == 3 else { throw Self.foreign("zone") }
        return ZoneChangePosition(incarnation: fields[0], counter: fields[1], initialSyncThrough: fields[2])
    }

    func databaseToken(_ counter: Int64, scope: String) -> String {
        sealer.seal(Data("d1.\(counter)".utf8), scope: scope)
    }

    /// The database counter a database token holds.
    /// - Throws: `.badRequest` if the token was not issued for this database.
    func databasePosition(_ token: String, scope: String) throws(NimbusError) -> Int64 {
        let fields = try open(token, scope: scope, version: "d1", family: "database")
        guard fields.count == 1 else { throw Self.foreign("database") }
        return fields[0]
    }

    /// The scope of a database token: one database of one user (or the public database).
    static func databaseScope(container: String, environment: Environment, database: DatabaseScope, owner: String) -> String {
        "database|\(container)|\(environment.rawValue)|\(database.rawValue)|\(owner)"
    }

    private func open(_ token: String, scope: String, version: String, family: String) throws(NimbusError) -> [Int64] {
        guard let payload = sealer.open(token, scope: scope) else { throw Self.foreign(family) }
        let parts = String(decoding: payload, as: UTF8.self).split(separator: ".")
        guard parts.first.map(String.init) == version else { throw Self.foreign(family) }
        var numbers: [Int64] = []
        for part in parts.dropFirst() {
            guard let number = Int64(part), number >= 0 else { throw Self.foreign(family) }
            numbers.append(number)
        }
        return numbers
    }

    static func foreign(_ family: String) -> NimbusError {
        .badRequest(
            "syncToken was not issued by this server for this \(family); "
                + "it may be malformed, altered, or from another \(family). Sync from scratch by leaving it out"
        )
    }
}
