//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusModel
import NimbusStore

/// The statement of ``SQLZoneTransaction/records(named:)``, a write's first read: records by
/// name, which of the names are a live record's parent, and, while the transaction has not read
/// its zone, the zone's row and whether anyone could hear of its changes.
extension SQLZoneTransaction {
    /// NULL for each record column after the first, in the parents' part of ``records(named:)``.
    private static let nullColumns = Array(repeating: "NULL", count: RecordRowCodec.columnCount - 1).joined(separator: ", ")

    /// Where the zone's part of ``records(named:)`` puts the zone's incarnation: the column of
    /// `created_at`, an integer as it is.
    static let incarnationColumn = 6

    /// The zone's part of ``records(named:)``: its row, if live, marked `is_deleted = 3`, with
    /// its counter where a record's is.
    private static let zoneRowSQL: String = {
        var columns = Array(repeating: "NULL", count: RecordRowCodec.columnCount)
        columns[incarnationColumn] = "incarnation"
        return """

            UNION ALL
            SELECT \(columns.joined(separator: ", ")), 3, change_counter FROM zones
            WHERE container = ? AND environment = ? AND owner = ? AND zone_name = ? AND is_deleted = 0
            """
    }()

    /// What ``records(named:)`` reads besides records and parents: nothing once the transaction
    /// knows its zone; otherwise the zone's row and whether anyone listens, where who may listen
    /// depends on whether the database is public.
    enum ZonePart {
        case none, publicZone, privateZone

        var sql: String {
            switch self {
            case .none: ""
            case .publicZone: publicZoneSQL
            case .privateZone: privateZoneSQL
            }
        }
    }

    private static let publicZoneSQL = zoneRowSQL + listenersSQL(public: true)
    private static let privateZoneSQL = zoneRowSQL + listenersSQL(public: false)

    /// ``records(named:)``'s statement, for names matched by `membership`.
    static func recordsSQL(membership: (String) -> String, zonePart: ZonePart) -> String {
        """
        SELECT \(RecordRowCodec.columns), is_deleted, change_counter FROM records
        WHERE container = ? AND environment = ? AND owner = ? AND zone_name = ?
          AND (is_deleted = 0 OR share_name IS NOT NULL) AND \(membership("record_name"))
        UNION ALL
        SELECT parent_name, \(nullColumns), 2, NULL FROM (
            SELECT DISTINCT parent_name FROM records
            WHERE container = ? AND environment = ? AND owner = ? AND zone_name = ? AND parent_name IS NOT NULL
              AND \(membership("parent_name")) AND is_deleted = 0) AS parents\(zonePart.sql)
        """
    }

    /// ``records(named:)``'s statement for one name, made once rather than on every write: it is
    /// the first statement of nearly every save (BENCHMARKS.md, issue 30's seventh step).
    static func oneNameSQL(_ zonePart: ZonePart) -> String {
        switch zonePart {
        case .none: oneNameSQLKnowingZone
        case .publicZone: oneNameSQLInPublicZone
        case .privateZone: oneNameSQLInPrivateZone
        }
    }

    private static let oneNameSQLKnowingZone = recordsSQL(membership: isOne, zonePart: .none)
    private static let oneNameSQLInPublicZone = recordsSQL(membership: isOne, zonePart: .publicZone)
    private static let oneNameSQLInPrivateZone = recordsSQL(membership: isOne, zonePart: .privateZone)

    private static func isOne(_ column: String) -> String { "\(column) = ?" }

    /// The listeners' part of ``records(named:)``: a row marked `is_deleted = 4` if the
    /// dispatcher would find anyone to tell of a change to this zone (`NotificationDispatcher`),
    /// a superset of those it tells (``knownUnheard``). A public database's query subscriptions,
    /// by any record type; a private database's owner's subscriptions, and the zone's accepted
    /// participants, whatever they subscribed to. A subscription saved after this reads is one
    /// saved after the change, concurrently with it, and is not owed it.
    private static func listenersSQL(public: Bool) -> String {
        let marker = Array(repeating: "NULL", count: RecordRowCodec.columnCount).joined(separator: ", ") + ", 4, NULL"
        if `public` {
            return """

                UNION ALL
                SELECT \(marker) WHERE EXISTS (
                    SELECT 1 FROM subscriptions WHERE container = ? AND environment = ? AND database_scope = '\(DatabaseScope.public.rawValue)')
                """
        }
        return """

            UNION ALL
            SELECT \(marker) WHERE EXISTS (
                SELECT 1 FROM subscriptions
                WHERE container = ? AND environment = ? AND database_scope = '\(DatabaseScope.private.rawValue)' AND user_record_name = ?)
              OR EXISTS (
                SELECT 1 FROM share_participants
                WHERE container = ? AND environment = ? AND owner = ? AND zone_name = ?
                  AND acceptance = 'ACCEPTED' AND role <> 'OWNER' AND user_record_name IS NOT NULL)
            """
    }

    /// The binds of ``records(named:)``'s statement, in one array.
    func recordsBinds(_ nameBind: SQLValue, readingZone: Bool) -> [SQLValue] {
        var binds: [SQLValue] = []
        binds.reserveCapacity(3 * zoneBinds.count + 9)
        binds += zoneBinds
        binds.append(nameBind)
        binds += zoneBinds
        binds.append(nameBind)
        guard readingZone else { return binds }
        binds += zoneBinds
        // The listeners' part: container and environment; in a private database, the owner and
        // the zone's key too.
        binds += zoneBinds.prefix(tenant.isPublic ? 2 : 3)
        if !tenant.isPublic { binds += zoneBinds }
        return binds
    }
}
