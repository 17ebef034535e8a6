//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Foundation
import NimbusModel
import NimbusStore
import Testing

@testable import NimbusSQL

@Suite("change feeds in the SQL store")
struct ChangeFeedStorageTests {
    private static let tenant = Tenant(container: "c", environment: .development, owner: "_owner")

    private static func withDirectory(_ body: (String) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nimbus-feed-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try await body(directory.appendingPathComponent("store.sqlite").path)
    }

    private static var nowMilliseconds: Int64 { Int64(Date().timeIntervalSince1970 * 1000) }

    @Test("upgrading a version 1 database: its zones enter the database feed, its tombstones get a deletion time")
    func upgradeFromVersion1() async throws {
        try await Self.withDirectory { path in
            let connection = try SQLiteConnection(path: path, readOnly: false)
            try await SQLMigrations.migrate(connection, dialect: .sqlite, through: 1)
            // What version 1 left behind: a custom zone with a record and a tombstone whose
            // modified_at is the last save (long ago), a default zone never written, a deleted zone.
            try connection.executeScript(
                """
                INSERT INTO zones VALUES ('c', 'development', '_owner', 'Z', 3, 1, 0, 1);
                INSERT INTO zones VALUES ('c', 'development', '_owner', '_defaultZone', 0, 1, 0, 1);
                INSERT INTO zones VALUES ('c', 'development', '_owner', 'Gone', 2, 1, 1, 1);
                INSERT INTO records VALUES ('c', 'development', '_owner', 'Z', 'live', 'Note', 2, '2', NULL, '{}', NULL,
                    1, 'u', '1', 1, 'u', '1', 0);
                INSERT INTO records VALUES ('c', 'development', '_owner', 'Z', 'dead', 'Note', 3, '3', NULL, '{}', NULL,
                    1, 'u', '1', 1, 'u', '1', 1);
                """
            )
            connection.close()

            let store = try await SQLStore.openSQLite(path: path, cipher: FieldCipher(keyBytes: Array(repeating: 3, count: 32))!)
            let changes = try await store.databaseChanges(of: Self.tenant, after: nil, limit: 10)
            #expect(changes.zones.map(\.zone.zoneID.zoneName) == ["Z"])
            let feed = try await store.zoneChanges(ZoneChangesRequest(tenant: Self.tenant, zoneName: "Z", after: nil, limit: 10))
            #expect(feed.changes.count == 1)
            // The tombstone's deletion time is the upgrade: a prune of everything older than an
            // hour ago leaves it, one of everything up to an hour from now removes it.
            #expect(try await store.pruneTombstones(deletedBefore: Self.nowMilliseconds - 3_600_000) == 0)
            #expect(try await store.pruneTombstones(deletedBefore: Self.nowMilliseconds + 3_600_000) == 1)
            // Writes after the upgrade move the zone along the feed.
            let position = changes.position
            _ = try await store.write(zone: ZoneID.defaultZoneName, of: Self.tenant) { transaction in
                let stamp = ChangeStamp(timestamp: 1, userRecordName: "_owner")
                return try await transaction.save([
                    Record(
                        recordID: RecordID(recordName: "d", zoneID: ZoneID(zoneName: ZoneID.defaultZoneName, ownerRecordName: "_owner")),
                        recordType: "Note",
                        created: stamp,
                        modified: stamp
                    )
                ])
            }
            let later = try await store.databaseChanges(of: Self.tenant, after: position, limit: 10)
            #expect(later.zones.map(\.zone.zoneID.zoneName) == [ZoneID.defaultZoneName])
            await store.close()
        }
    }

    @Test("the feeds and the pruner read through their indexes, never a scan of the records")
    func queryPlans() async throws {
        try await Self.withDirectory { path in
            let connection = try SQLiteConnection(path: path, readOnly: false)
            try await SQLMigrations.migrate(connection, dialect: .sqlite)
            func plan(_ sql: String, _ binds: [SQLValue]) throws -> String {
                try connection.query("EXPLAIN QUERY PLAN " + sql, binds).map { $0.string(3) }.joined(separator: "; ")
            }
            let zone: [SQLValue] = [.text("c"), .text("development"), .text("_owner"), .text("Z"), .integer(0)]
            for skips in [false, true] {
                for filters in [false, true] {
                    var binds = zone
                    if skips { binds.append(.integer(5)) }
                    if filters { binds.append(.text(#"["Note"]"#)) }
                    binds.append(.integer(201))
                    let detail = try plan(SQLStore.zoneChangesSQL(skipsOldTombstones: skips, filtersTypes: filters, dialect: .sqlite), binds)
                    #expect(detail.contains("USING INDEX records_by_change"), "\(detail)")
                    #expect(!detail.contains("TEMP B-TREE"), "sorts instead of reading in index order: \(detail)")
                }
            }
            for fromScratch in [false, true] {
                let detail = try plan(
                    SQLStore.databaseChangesSQL(fromScratch: fromScratch),
                    [.text("c"), .text("development"), .text("_owner"), .integer(0), .integer(201)]
                )
                // One tenant's zones through the primary key, then sorted: no index keeps them in
                // feed order, as one would be written on every zone write (see the test below).
                #expect(detail.contains("SEARCH zones USING INDEX sqlite_autoindex_zones_1 (container=? AND environment=? AND owner=?)"), "\(detail)")
                #expect(!detail.contains("SCAN zones"), "\(detail)")
            }
            let prune = try plan(SQLStore.oldestTombstonesSQL, [.integer(0), .integer(10)])
            #expect(prune.contains("USING COVERING INDEX records_tombstones_by_time"), "\(prune)")
            connection.close()
        }
    }

    /// Every zone write moves its zone's counters. Were either in an index, each write would add
    /// an entry to every index of the zones, and on PostgreSQL could never be a heap-only update
    /// (a new row version on the same page, without index entries), leaving a dead row version
    /// per write for the next read of the zone to step over until a vacuum.
    @Test("a zone write changes nothing any index of the zones holds")
    func zoneCountersAreNotIndexed() async throws {
        try await withTestStore { store in
            // Whole definitions, so that columns, expressions and partial indexes' conditions all count.
            let definitions =
                store.database is PostgreSQLDatabase
                ? "SELECT pg_get_indexdef(indexrelid) FROM pg_index WHERE indrelid = 'zones'::regclass"
                : "SELECT COALESCE(sql, name) FROM sqlite_master WHERE type = 'index' AND tbl_name = 'zones'"
            let indexes = try await store.database.read { try await $0.query(definitions, []) }.map { $0.string(0) }
            #expect(!indexes.isEmpty, "the primary key's index, at least")
            for counter in ["change_counter", "database_counter"] {
                #expect(!indexes.contains { $0.contains(counter) }, "\(counter) in \(indexes)")
            }
        }
    }
}
