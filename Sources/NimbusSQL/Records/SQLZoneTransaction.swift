//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusModel
import NimbusStore

/// A write transaction on one zone, over the connection of an open SQL transaction.
///
/// Each save or delete takes fresh counter values from the zone row in the same transaction,
/// so counters follow commit order within the zone.
final class SQLZoneTransaction: ZoneTransaction {
    let tenant: Tenant
    /// The transaction's connection, which checks the zone before the first statement.
    let connection: ZoneCheckingConnection
    let dialect: SQLDialect
    private let codec: RecordRowCodec
    /// When the transaction started, in milliseconds since 1970: the deletion time of its tombstones.
    let startedAt: Int64
    /// Names this transaction looked up and found absent: saving one cannot replace references.
    private var knownAbsent: Set<NameKey> = []
    /// Whether each record this transaction looked up named assets: saving or deleting one that
    /// did not need not remove its asset references.
    private var namedAssets: [NameKey: Bool] = [:]
    /// Whether this transaction moved the zone to the end of the database change feed.
    private var movedInDatabaseFeed = false
    /// The zone counter before this transaction's first change, and its last counter so far.
    private(set) var spentCounters: (from: Int64, through: Int64)?
    /// Whether ``recordChange(_:)`` wrote an outbox row: the store's commit hook fires for it.
    var recordedChange = false
    /// Whether this transaction read that nobody could hear of its changes: no subscription the
    /// dispatcher would read for them, nor a participant in the zone (``records(named:)``). Its
    /// change then needs no outbox row. False until read, and again once the transaction writes
    /// a share (which may add participants).
    var knownUnheard = false
    /// The share each tombstone this transaction looked up or wrote was in when deleted, and
    /// the tombstone's counter. Saving over such a tombstone outside that share must report an
    /// exit from it: a participant who has not fetched the tombstone yet still holds the record.
    private var tombstoneShares: [NameKey: (share: String, counter: Int64)] = [:]
    /// The bytes each record this transaction read or wrote takes (0 for none or a tombstone),
    /// and how much the transaction changed its owner's storage: settled before commit.
    private var sizes: [NameKey: Int64] = [:]
    /// The fields of each record type this transaction read or added: a field it adds that was
    /// not among them must still be absent (``SQLStore/addFields(_:toRecordType:in:on:markings:readAsAbsent:)``).
    private var knownFields: [String: Set<NameKey>] = [:]
    private(set) var storageDelta: Int64 = 0
    /// The owner's storage quota: storage is counted only under one (see `settleStorage`).
    private let quota: Int64?
    /// Which names ``records(named:)`` was asked for, and which of them were the parent of a
    /// live record then: it answers both in one statement, and
    /// ``parentsOfLiveRecords(among:)`` answers from this until the transaction writes (spends a
    /// counter; `through` is the counter it had spent when it learnt them).
    private var learntParents: (asked: Set<NameKey>, parents: Set<NameKey>, through: Int64?) = ([], [], nil)

    init(
        tenant: Tenant,
        connection: ZoneCheckingConnection,
        dialect: SQLDialect,
        codec: RecordRowCodec,
        startedAt: Int64,
        quota: Int64? = nil
    ) {
        self.quota = quota
        self.tenant = tenant
        self.connection = connection
        self.dialect = dialect
        self.codec = codec
        self.startedAt = startedAt
        self.zoneBinds = SQLStore.binds(tenant, zone: connection.zoneID.zoneName)
    }

    var zoneID: ZoneID { connection.zoneID }

    func zone() async throws -> Zone {
        try await connection.checkedZone()
    }

    /// The zone's key columns as binds, made once: most statements start with them.
    let zoneBinds: [SQLValue]

    func records(named names: [String]) async throws -> [NameKey: Record] {
        guard !names.isEmpty else { return [:] }
        // Live rows, and the tombstones that were in a share (see `tombstoneShares`); then,
        // marked `is_deleted = 2`, which of the names live records name as parent: a write that
        // creates a record asks that next (``parentsOfLiveRecords(among:)``), and here it costs
        // no round trip of its own. Answered by the partial `records_by_parent` index.
        let nameBind = names.count == 1 ? SQLValue.text(names[0]) : .textList(names)
        // The zone's row too, while the transaction has not read it (``ZoneCheckingConnection``):
        // a write's first statement is usually this one.
        let readsZone = connection.zone == nil
        let zonePart = readsZone ? (tenant.isPublic ? ZonePart.publicZone : .privateZone) : .none
        let rows = try await connection.base.query(
            names.count == 1 ? Self.oneNameSQL(zonePart) : Self.recordsSQL(membership: dialect.isAmong, zonePart: zonePart),
            recordsBinds(nameBind, readingZone: readsZone)
        )
        if readsZone { knownUnheard = !rows.contains { $0.int(RecordRowCodec.columnCount) == 4 } }
        if readsZone {
            let zoneRow = rows.first { $0.int(RecordRowCodec.columnCount) == 3 }
            try await connection.learn(
                zoneRow.map {
                    Zone(zoneID: zoneID, changeCounter: $0.int(RecordRowCodec.columnCount + 1), incarnation: $0.int(Self.incarnationColumn))
                }
            )
        }
        var found: [NameKey: Record] = [:]
        var parents: Set<NameKey> = []
        for name in names {
            sizes[NameKey(name)] = 0
            namedAssets[NameKey(name)] = false
        }
        for row in rows {
            let deleted = row.int(RecordRowCodec.columnCount)
            if deleted >= 3 {
                continue
            } else if deleted == 2 {
                parents.insert(NameKey(row.string(0)))
            } else if deleted != 0 {
                let share = row.string(RecordRowCodec.shareColumn)
                tombstoneShares[NameKey(row.string(0))] = (share, row.int(RecordRowCodec.columnCount + 1))
            } else {
                let record = try codec.record(from: row, zoneID: zoneID)
                found[NameKey(record.recordID.recordName)] = record
                sizes[NameKey(record.recordID.recordName)] = Self.size(fields: row[4], encrypted: row[5])
                namedAssets[NameKey(record.recordID.recordName)] = !record.assetIDs.isEmpty
            }
        }
        for name in names where found[NameKey(name)] == nil { knownAbsent.insert(NameKey(name)) }
        if learntParents.through != spentCounters?.through { learntParents = ([], [], spentCounters?.through) }
        learntParents.asked.formUnion(names.map { NameKey($0) })
        learntParents.parents.formUnion(parents)
        return found
    }

    func parentsOfLiveRecords(among names: [String]) async throws -> Set<String> {
        guard !names.isEmpty else { return [] }
        let keys = names.map { NameKey($0) }
        if learntParents.through == spentCounters?.through, keys.allSatisfy(learntParents.asked.contains) {
            return Set(names.filter { learntParents.parents.contains(NameKey($0)) })
        }
        // Answered by the partial `records_by_parent` index.
        let rows = try await connection.query(
            """
            SELECT DISTINCT parent_name FROM records
            WHERE container = ? AND environment = ? AND owner = ? AND zone_name = ? AND parent_name IS NOT NULL
              AND \(dialect.isAmong("parent_name")) AND is_deleted = 0
            """,
            zoneBinds + [.textList(names)]
        )
        return Set(rows.map { $0.string(0) })
    }

    func referrers(to targetNames: [String]) async throws -> [ReferenceEdge] {
        guard !targetNames.isEmpty else { return [] }
        let rows = try await connection.query(
            """
            SELECT source_name, target_name, action FROM record_references
            WHERE container = ? AND environment = ? AND owner = ? AND zone_name = ? AND \(dialect.isAmong("target_name"))
            """,
            zoneBinds + [.textList(targetNames)]
        )
        return rows.compactMap { row in
            Reference.Action(rawValue: row.string(2)).map {
                ReferenceEdge(sourceName: row.string(0), targetName: row.string(1), action: $0)
            }
        }
    }

    func save(_ records: [Record]) async throws -> [Record] {
        try await save(records, recording: nil)
    }

    func save(_ records: [Record], recordingChange note: ChangeNote) async throws -> [Record] {
        try await save(records, recording: note)
    }

    /// Saves `records`; with a `note`, as the transaction's last change, whose outbox row goes
    /// into the first INSERT's statement with the counters: the counters this save spends are
    /// known before it runs (see below), so the row's are too.
    private func save(_ records: [Record], recording note: ChangeNote?) async throws -> [Record] {
        guard !records.isEmpty else {
            if let note { try await recordChange(note) }
            return []
        }
        // The record at position i takes counter `base + 1 + i`. The records are copied once,
        // into the result, and changed there: a record is a large value, and this runs inside
        // the write transaction every writer waits for.
        // Under the zone's lock nothing else moves its counter: the values to take are known
        // before they are taken, so the first INSERT can take them in the same statement, and
        // the writer need not wait for its answer (``takeCounters(_:after:alongside:)``).
        let base = try await knownCounter()
        var saved = records
        for index in saved.indices {
            saved[index].recordChangeTag = String(base + 1 + Int64(index), radix: 36)
        }
        try await learnSizes(of: saved.map(\.recordID.recordName))
        for (batch, rows) in Self.insertBatches(saved).enumerated() {
            let insert = try upsertStatement(saved[rows], firstCounter: base + 1 + Int64(rows.lowerBound))
            if batch == 0 {
                let through = base + Int64(records.count)
                let event = note.flatMap { needsOutboxRow($0) ? $0 : nil }.map {
                    SQLStore.changeEventStatement(
                        $0,
                        zone: zoneID.zoneName,
                        of: tenant,
                        from: spentCounters?.from ?? base,
                        through: through,
                        dialect: dialect
                    )
                }
                try await takeCounters(records.count, after: base, alongside: [insert] + (event.map { [$0] } ?? []))
                if event != nil { recordedChange = true }
            } else {
                try await connection.send(insert)
            }
        }
        try await reportExitsFromTombstones(replacedBy: saved)
        for index in saved.indices {
            let name = saved[index].recordID.recordName
            try await replaceReferences(of: name, with: saved[index].references, hadNone: knownAbsent.contains(NameKey(name)))
            try await replaceAssetReferences(of: name, with: saved[index].assetIDs)
            knownAbsent.remove(NameKey(name))
        }
        return saved
    }

    /// A record saved over a tombstone of another share leaves that share at the tombstone's
    /// counter, which no row holds any more: a participant past it fetched the tombstone and
    /// gets nothing again; one before it gets the exit (or, following the record's new share,
    /// the record itself, which suppresses the exit).
    private func reportExitsFromTombstones(replacedBy saved: [Record]) async throws {
        guard !tombstoneShares.isEmpty else { return }
        for index in saved.indices {
            let name = saved[index].recordID.recordName
            guard let (share, counter) = tombstoneShares.removeValue(forKey: NameKey(name)), share != saved[index].containingShare else { continue }
            try await connection.execute(
                """
                INSERT INTO share_exits (container, environment, owner, zone_name, share_name, change_counter, record_name)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                """,
                zoneBinds + [.text(share), .integer(counter), .text(name)]
            )
        }
    }

    /// Rows per multi-row INSERT: 20 parameters each, far below either engine's limit, and few
    /// statements for a 200-record batch, which on PostgreSQL is a round trip each.
    static let rowsPerInsert = 100

    /// The positions of `saved` cut into INSERTs of at most ``rowsPerInsert`` rows, in order,
    /// none naming a record twice: `ON CONFLICT DO UPDATE` may not touch a row twice in one
    /// statement.
    static func insertBatches(_ saved: [Record]) -> [Range<Int>] {
        var batches: [Range<Int>] = []
        var start = saved.startIndex
        var names: Set<String> = []
        for index in saved.indices {
            let name = saved[index].recordID.recordName
            if index - start == rowsPerInsert || names.contains(name) {
                batches.append(start..<index)
                start = index
                names = []
            }
            names.insert(name)
        }
        batches.append(start..<saved.endIndex)
        return batches
    }

    /// The statement that writes records, replacing the rows (live or tombstones) of the same
    /// names; the first takes change counter `firstCounter`, the next one more, and so on.
    /// Counts their storage as it builds it.
    private func upsertStatement(_ rows: ArraySlice<Record>, firstCounter: Int64) throws -> SQLStatement {
        var binds: [SQLValue] = []
        binds.reserveCapacity(rows.count * 20)
        for index in rows.indices {
            let record = rows[index]
            let counter = firstCounter + Int64(index - rows.startIndex)
            let fields = try codec.fieldsColumn(record)
            let encrypted = try codec.encryptedColumn(record)
            let name = record.recordID.recordName
            let size = Self.size(fields: fields, encrypted: encrypted)
            storageDelta += size - (sizes[NameKey(name)] ?? 0)
            sizes[NameKey(name)] = size
            binds += zoneBinds
            binds += [
                .text(name), .text(record.recordType), .integer(counter),
                .text(record.recordChangeTag), record.parentRecordName.map(SQLValue.text) ?? .null,
                fields, encrypted,
                .integer(record.created.timestamp), .text(record.created.userRecordName),
                .text(record.created.deviceID), .integer(record.modified.timestamp),
                .text(record.modified.userRecordName), .text(record.modified.deviceID),
                record.containingShare.map(SQLValue.text) ?? .null, .integer(record.shareRecordName == nil ? 0 : 1),
                SearchTokens.document(of: record.fields).map(SQLValue.text) ?? .null,
            ]
        }
        let values = Array(repeating: "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?, ?)", count: rows.count)
        return SQLStatement(
            sql: """
                INSERT INTO records (container, environment, owner, zone_name, record_name, record_type, change_counter,
                    change_tag, parent_name, fields, encrypted_fields, created_at, created_by, created_device,
                    modified_at, modified_by, modified_device, is_deleted, share_name, is_share_root, search_document)
                VALUES \(values.joined(separator: ",\n    "))
                ON CONFLICT (container, environment, owner, zone_name, record_name) DO UPDATE SET
                    record_type = excluded.record_type, change_counter = excluded.change_counter,
                    change_tag = excluded.change_tag, parent_name = excluded.parent_name, fields = excluded.fields,
                    encrypted_fields = excluded.encrypted_fields, created_at = excluded.created_at,
                    created_by = excluded.created_by, created_device = excluded.created_device,
                    modified_at = excluded.modified_at, modified_by = excluded.modified_by,
                    modified_device = excluded.modified_device, is_deleted = 0,
                    share_name = excluded.share_name, is_share_root = excluded.is_share_root,
                    search_document = excluded.search_document
                """,
            binds: binds
        )
    }

    func delete(_ records: [Tombstone]) async throws {
        guard !records.isEmpty else { return }
        try await learnSizes(of: records.map(\.recordName))
        var counter = try await allocateCounters(records.count)
        for tombstone in records {
            counter += 1
            storageDelta -= sizes[NameKey(tombstone.recordName)] ?? 0
            sizes[NameKey(tombstone.recordName)] = 0
            let rows = try await connection.query(
                """
                UPDATE records SET is_deleted = 1, change_counter = ?, change_tag = ?, record_type = ?,
                    fields = '{}', encrypted_fields = NULL, parent_name = NULL, modified_at = ?,
                    is_share_root = 0, search_document = NULL
                WHERE container = ? AND environment = ? AND owner = ? AND zone_name = ? AND record_name = ?
                RETURNING share_name
                """,
                [.integer(counter), .text(String(counter, radix: 36)), .text(tombstone.recordType), .integer(startedAt)]
                    + zoneBinds + [.text(tombstone.recordName)]
            )
            tombstoneShares[NameKey(tombstone.recordName)] = rows.first?[0].text.map { ($0, counter) }
            try await replaceReferences(of: tombstone.recordName, with: [], hadNone: false)
            try await replaceAssetReferences(of: tombstone.recordName, with: [])
        }
    }

    func fields(ofRecordType recordType: String) async throws -> [NameKey: FieldSchema] {
        let fields = try await SQLStore.fields(ofRecordType: recordType, in: container, on: connection)
        knownFields[recordType] = Set(fields.keys)
        return fields
    }

    func addFields(_ fields: [NameKey: FieldSchema], toRecordType recordType: String) async throws {
        let known = knownFields[recordType]
        try await SQLStore.addFields(
            fields,
            toRecordType: recordType,
            in: container,
            on: connection,
            readAsAbsent: known.map { Set(fields.keys).subtracting($0) } ?? []
        )
        if known != nil { knownFields[recordType, default: []].formUnion(fields.keys) }
    }

    /// Adds what the transaction changed to its owner's storage, and refuses the transaction
    /// (before commit) if that takes the owner past their quota. Freeing storage always succeeds.
    ///
    /// Only containers with a quota pay for the counting (a statement per write): setting a
    /// quota counts what is stored (`SQLStore.recountStorage`).
    func settleStorage() async throws {
        guard let quota, storageDelta != 0 else { return }
        let rows = try await connection.query(
            """
            INSERT INTO storage_usage (container, environment, owner, bytes) VALUES (?, ?, ?, ?)
            ON CONFLICT (container, environment, owner) DO UPDATE SET bytes = storage_usage.bytes + excluded.bytes
            RETURNING bytes
            """,
            [.text(tenant.container), .text(tenant.environment.rawValue), .text(tenant.owner), .integer(storageDelta)]
        )
        if storageDelta > 0, let used = rows.first?.int(0), used > quota {
            throw StoreError(.quotaExceeded, detail: "\(used) of \(quota) bytes")
        }
    }

    /// Reads the sizes of records this transaction has not read yet: saving or deleting one
    /// replaces what it took.
    private func learnSizes(of names: [String]) async throws {
        guard quota != nil else { return }
        let unknown = Array(Set(names.filter { sizes[NameKey($0)] == nil }.map { NameKey($0) })).map(\.string)
        guard !unknown.isEmpty else { return }
        let rows = try await connection.query(
            """
            SELECT record_name, \(dialect.recordSize) FROM records
            WHERE container = ? AND environment = ? AND owner = ? AND zone_name = ? AND is_deleted = 0 AND \(dialect.isAmong("record_name"))
            """,
            zoneBinds + [.textList(unknown)]
        )
        for name in unknown { sizes[NameKey(name)] = 0 }
        for row in rows { sizes[NameKey(row.string(0))] = row.int(1) }
    }

    /// The bytes of a row's `fields` and `encrypted_fields`, as ``SQLDialect/recordSize`` counts them.
    private static func size(fields: SQLValue, encrypted: SQLValue) -> Int64 {
        Int64((fields.text?.utf8.count ?? 0) + (encrypted.blob?.count ?? 0))
    }

    private var container: ContainerEnvironment {
        ContainerEnvironment(container: tenant.container, environment: tenant.environment)
    }

    // MARK: - Private

    /// Reserves `count` counter values; returns the value just before the first.
    ///
    /// The first write of the transaction also moves the zone to the end of the database change
    /// feed; later ones need not, as they commit together. Writes `alongside`, which must
    /// neither depend on what this returns nor touch the counters' rows, run with it: on
    /// PostgreSQL in the same statement, as a data-modifying `WITH` (one round trip, in an order
    /// PostgreSQL chooses), on SQLite after it.
    func allocateCounters(_ count: Int, alongside others: [SQLStatement] = []) async throws -> Int64 {
        guard let statement = countersStatement(count, alongside: others) else {
            // SQLite: under the one writer, the counter is where the transaction knows it to be.
            let base = try await knownCounter()
            try await takeCounters(count, after: base, alongside: others)
            return base
        }
        let rows = try await connection.query(statement.sql, statement.binds)
        let through = try Self.counterTaken(rows)
        let base = through - Int64(count)
        spent(after: base, through: through)
        return base
    }

    /// The zone's counter as this transaction left it, or as it read it under the zone's lock.
    private func knownCounter() async throws -> Int64 {
        if let through = spentCounters?.through { return through }
        return try await connection.checkedZone().changeCounter
    }

    /// Notes counters `base + 1 … through` as taken, the zone moved in the database feed.
    private func spent(after base: Int64, through: Int64) {
        movedInDatabaseFeed = true
        spentCounters = (spentCounters?.from ?? base, through)
    }

    /// Takes the `count` counter values after `base`, which the transaction read under the
    /// zone's lock, as ``allocateCounters(_:alongside:)`` does; on PostgreSQL without waiting
    /// for the answer (``SQLConnection/send(_:)``): the statement fails by itself, and writes
    /// nothing, should the counter not be where `base` says.
    func takeCounters(_ count: Int, after base: Int64, alongside others: [SQLStatement]) async throws {
        let through = base + Int64(count)
        guard let statement = countersStatement(count, alongside: others, expecting: through) else {
            try await takeCountersWithoutReturning(through: through, after: base)
            for other in others { try await connection.execute(other) }
            spent(after: base, through: through)
            return
        }
        try await connection.send(statement)
        spent(after: base, through: through)
    }

    /// Moves the counters to `through` from `base` without `RETURNING`, which SQLite answers
    /// through a temporary table it opens and closes for each statement (BENCHMARKS.md, issue
    /// 30's eleventh step). The zone's row is updated only where its counter is at `base`, and
    /// `changes()` says whether it was.
    private func takeCountersWithoutReturning(through: Int64, after base: Int64) async throws {
        var binds: [SQLValue] = [.integer(through)]
        var position: String?
        if !movedInDatabaseFeed {
            try await connection.execute(SQLStore.moveDatabaseCounterSQL, SQLStore.binds(tenant))
            position = SQLStore.databaseCounterSQL
            binds += SQLStore.binds(tenant)
        }
        try await connection.execute(
            """
            UPDATE zones SET change_counter = ?\(position.map { ", database_counter = \($0)" } ?? "")
            WHERE container = ? AND environment = ? AND owner = ? AND zone_name = ? AND change_counter = ?
            """,
            binds + zoneBinds + [.integer(base)]
        )
        guard try await connection.query("SELECT changes()", []).first?.int(0) != 1 else { return }
        // Never expected: the transaction read the counter at `base` under the zone's lock.
        guard let zone = try await SQLStore.liveZone(zoneID.zoneName, of: tenant, on: connection.base) else {
            throw StoreError(.zoneNotFound, detail: "zone vanished mid-transaction")
        }
        throw StoreError(.database, detail: "zone counter at \(zone.changeCounter), expected \(base): another writer moved it")
    }

    /// The counters' statement as one data-modifying `WITH`, where the dialect has them. With
    /// `expecting`, the counter the zone must reach, the statement fails (and so writes nothing)
    /// should the zone reach another or be gone: PostgreSQL raises the error of a failed cast
    /// rather than return rows nobody reads.
    private func countersStatement(_ count: Int, alongside others: [SQLStatement], expecting through: Int64? = nil) -> SQLStatement? {
        guard dialect.hasDataModifyingCTEs else { return nil }
        var steps = ""
        var binds: [SQLValue] = []
        if !movedInDatabaseFeed {
            // The database counter first, then the zone's: the same two writes, in the same
            // order, so the database row's lock is still taken first.
            steps = "position AS (\n\(SQLStore.nextDatabaseCounterSQL)),\n"
            binds += SQLStore.binds(tenant)
        }
        steps += "counters AS (\n\(zoneCountersUpdate(position: movedInDatabaseFeed ? nil : "(SELECT change_counter FROM position)")))"
        binds.append(.integer(Int64(count)))
        binds += zoneBinds
        for (index, other) in others.enumerated() {
            steps += ",\nalongside\(index) AS (\n\(other.sql))"
            binds += other.binds
        }
        guard let through else { return SQLStatement(sql: "WITH \(steps)\nSELECT change_counter FROM counters", binds: binds) }
        return SQLStatement(
            sql: """
                WITH \(steps)
                SELECT CAST(CASE WHEN counters.change_counter = ? THEN '0' ELSE 'zone counter moved, or zone gone' END AS BIGINT)
                FROM (SELECT 1) AS one LEFT JOIN counters ON true
                """,
            binds: binds + [.integer(through)]
        )
    }

    /// Moves the zone's counter on (binds: the count, the `position` expression's if it takes
    /// one, then ``zoneBinds``); with a `position`, the zone to that place in the database change
    /// feed too.
    private func zoneCountersUpdate(position: String?) -> String {
        """
        UPDATE zones SET change_counter = change_counter + ?\(position.map { ", database_counter = \($0)" } ?? "")
        WHERE container = ? AND environment = ? AND owner = ? AND zone_name = ?
        RETURNING change_counter
        """
    }

    /// The zone's counter as a counters statement left it.
    private static func counterTaken(_ rows: [SQLRow]) throws -> Int64 {
        guard let row = rows.first else { throw StoreError(.zoneNotFound, detail: "zone vanished mid-transaction") }
        return row.int(0)
    }

    /// Indexes the references the server acts on (`DELETE_SELF`, `VALIDATE`) by target.
    /// `hadNone` skips removing the old ones of a record known not to have existed.
    private func replaceReferences(of sourceName: String, with references: [Reference], hadNone: Bool) async throws {
        if !hadNone {
            let delete = SQLStatement(
                sql: """
                    DELETE FROM record_references
                    WHERE container = ? AND environment = ? AND owner = ? AND zone_name = ? AND source_name = ?
                    """,
                binds: zoneBinds + [.text(sourceName)]
            )
            try await connection.send(delete)
        }
        for reference in references where reference.action != .none {
            let insert = SQLStatement(
                sql: """
                    INSERT INTO record_references (container, environment, owner, zone_name, target_name, source_name, action)
                    VALUES (?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT (container, environment, owner, zone_name, target_name, source_name)
                        DO UPDATE SET action = excluded.action
                    """,
                binds: zoneBinds + [.text(reference.recordName), .text(sourceName), .text(reference.action.rawValue)]
            )
            try await connection.send(insert)
        }
    }

    /// Records which assets a record's fields name, so the collector keeps them. An asset that
    /// is gone, or belongs to another database, fails the write.
    private func replaceAssetReferences(of recordName: String, with assetIDs: Set<String>) async throws {
        if namedAssets[NameKey(recordName)] != false {
            try await connection.execute(
                "DELETE FROM record_assets WHERE container = ? AND environment = ? AND owner = ? AND zone_name = ? AND record_name = ?",
                zoneBinds + [.text(recordName)]
            )
        }
        namedAssets[NameKey(recordName)] = !assetIDs.isEmpty
        for assetID in assetIDs.sorted() {
            let inserted = try await connection.query(
                """
                INSERT INTO record_assets (container, environment, owner, zone_name, record_name, asset_id)
                SELECT container, environment, owner, ?, ?, asset_id FROM assets
                WHERE asset_id = ? AND container = ? AND environment = ? AND owner = ?
                RETURNING asset_id
                """,
                [
                    .text(zoneID.zoneName), .text(recordName), .text(assetID), .text(tenant.container), .text(tenant.environment.rawValue),
                    .text(tenant.owner),
                ]
            )
            guard !inserted.isEmpty else { throw StoreError(.assetNotFound, detail: "asset \(assetID)") }
        }
    }
}
