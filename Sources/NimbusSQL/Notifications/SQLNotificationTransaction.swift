//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusModel
import NimbusStore

/// The dispatcher's transaction: claims outbox rows, reads what they cover, writes inboxes.
struct SQLNotificationTransaction: NotificationTransaction {
    let connection: any SQLConnection
    let dialect: SQLDialect
    let cipher: FieldCipher
    let now: Int64
    /// The condition that takes the dispatcher's turn (``SQLDatabase/write(takingTurnOf:_:)``),
    /// in the first statement of a pass: the take, or a finish by itself.
    let turn: String

    /// Rows per multi-row statement: few round trips for a 1,000-member fan-out.
    private static let rowsPerStatement = 100

    /// Whether ``takeEvents(limit:)`` runs `takingWithAudiences`, which needs a data-modifying
    /// `WITH`; SQLite has none.
    private var takesWithAudiences: Bool { dialect.hasDataModifyingCTEs }

    func takeEvents(limit: Int) async throws -> TakenEvents {
        let columns = "container, environment, owner, zone_name, body, counter_through, counter_from, created_at"
        // The oldest rows, locked: another instance's dispatcher skips them.
        let oldest = "FROM change_events WHERE \(turn) ORDER BY created_at, counter_through LIMIT ?\(dialect.lockSkippingLocked)"
        guard takesWithAudiences else {
            // SQLite: a read, then a delete by key. `RETURNING` and `IN (SELECT …)` would each
            // fill a temporary table, which costs more than the statement they save in process.
            let rows = try await connection.query("SELECT 'e', \(columns) \(oldest)", [.integer(Int64(limit))])
            try await deleteEvents(rows.map { EventKey(zone: ZoneKey(row: $0), counterThrough: $0.int(6)) })
            return TakenEvents(events: Self.events(from: rows))
        }
        let taking = """
            DELETE FROM change_events WHERE (container, environment, owner, zone_name, counter_through) IN (
                SELECT container, environment, owner, zone_name, counter_through \(oldest))
            RETURNING \(columns)
            """
        let rows = try await connection.query(Self.takingWithAudiences(taking), [.integer(Int64(limit))])
        var audiences = PrivateAudiences()
        var unreadable = false
        for row in rows {
            // An event of an environment nothing reads is dropped (`events(from:)`); its
            // audience must not join another's.
            guard let environment = Environment(rawValue: row.string(2)) else { continue }
            let container = ContainerEnvironment(container: row.string(1), environment: environment)
            switch row.string(0) {
            case "s":
                // One that cannot be read must fail its event's handling, not the take: the
                // dispatcher sets aside an event that fails on its own only once it knows which
                // it took. Without these audiences it reads them itself, and fails there.
                guard let subscription = try? SQLStore.subscription(fromBody: row.string(5)) else {
                    unreadable = true
                    continue
                }
                audiences.subscriptions[container, default: [:]][row.string(3), default: []].append(subscription)
            case "p":
                let zone = OwnedZone(owner: row.string(3), zoneName: row.string(4))
                let participant = ZoneParticipant(userRecordName: row.string(5), shareName: row.string(9))
                audiences.participants[container, default: [:]][zone, default: []].append(participant)
            default: continue
            }
        }
        return TakenEvents(events: Self.events(from: rows), audiences: unreadable ? nil : audiences)
    }

    /// One statement that takes the events (`taking`) and reads, for the private databases'
    /// ones, their owners' subscriptions and their zones' participants: rows of three kinds,
    /// told apart by the first column. An owner's subscriptions are read for every event; a
    /// public database's owner has none in the private scope.
    ///
    /// It also lets the transaction commit without waiting for its log flush, until
    /// ``deliver(_:in:)`` writes an entry. Most changes notify nobody, and a transaction that
    /// only took events loses nothing should a crash undo it: the events come back and are
    /// dispatched again. Should it wait, a tenant's next write waits for that flush too. A later
    /// commit that waits for its own flush makes this one durable with it.
    private static func takingWithAudiences(_ taking: String) -> String {
        """
        WITH taken AS (\(taking))
        SELECT 'e', container, environment, owner, zone_name, body, counter_through, counter_from, created_at, CAST(NULL AS TEXT)
        FROM taken
        UNION ALL
        SELECT 's', s.container, s.environment, s.user_record_name, NULL, s.body, NULL, NULL, NULL, NULL FROM subscriptions s
        WHERE s.database_scope = '\(DatabaseScope.private.rawValue)' AND EXISTS (
            SELECT 1 FROM taken t WHERE t.container = s.container AND t.environment = s.environment AND t.owner = s.user_record_name)
        UNION ALL
        SELECT 'p', p.container, p.environment, p.owner, p.zone_name, p.user_record_name, NULL, NULL, NULL, p.share_name
        FROM share_participants p
        WHERE p.acceptance = 'ACCEPTED' AND p.role <> 'OWNER' AND p.user_record_name IS NOT NULL AND EXISTS (
            SELECT 1 FROM taken t
            WHERE t.container = p.container AND t.environment = p.environment AND t.owner = p.owner AND t.zone_name = p.zone_name)
        UNION ALL
        SELECT 'c', set_config('synchronous_commit', 'off', true), NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL
        """
    }

    /// Events from the rows of kind `e` (then container, environment, owner, zone name, body,
    /// counter through, counter from, created at), oldest first; a row nothing can read is
    /// dropped, as it would hold up every row behind it.
    private static func events(from rows: [SQLRow]) -> [ChangeEvent] {
        var events: [ChangeEvent] = []
        for row in rows where row.string(0) == "e" {
            guard let environment = Environment(rawValue: row.string(2)) else { continue }
            let tenant = Tenant(container: row.string(1), environment: environment, owner: row.string(3))
            let zoneID = ZoneID(zoneName: row.string(4), ownerRecordName: tenant.owner)
            guard let note = try? ChangeNoteCoding.decode(row.string(5), zoneID: zoneID) else { continue }
            events.append(
                ChangeEvent(
                    tenant: tenant,
                    zoneName: row.string(4),
                    counterFrom: row.int(7),
                    counterThrough: row.int(6),
                    note: note,
                    createdAt: row.int(8)
                )
            )
        }
        // Neither RETURNING nor UNION keeps an order.
        return events.sorted { ($0.createdAt, $0.counterThrough) < ($1.createdAt, $1.counterThrough) }
    }

    func rows(of event: ChangeEvent, decodingFields: Bool) async throws -> ChangeEventRows {
        let range: [SQLValue] = SQLStore.binds(event.tenant, zone: event.zoneName) + [.integer(event.counterFrom), .integer(event.counterThrough)]
        let recordRows = try await connection.query(
            """
            SELECT \(RecordRowCodec.columns), is_deleted FROM records
            WHERE container = ? AND environment = ? AND owner = ? AND zone_name = ? AND change_counter > ? AND change_counter <= ?
            ORDER BY change_counter
            """,
            range
        )
        let codec = RecordRowCodec(cipher: cipher, tenant: event.tenant, zoneName: event.zoneName)
        let zoneID = ZoneID(zoneName: event.zoneName, ownerRecordName: event.tenant.owner)
        var saved: [Record] = []
        var deleted: [(tombstone: Tombstone, share: String?)] = []
        for row in recordRows {
            if row.int(RecordRowCodec.columnCount) != 0 {
                deleted.append((Tombstone(recordName: row.string(0), recordType: row.string(1)), row[RecordRowCodec.shareColumn].text))
            } else {
                saved.append(try codec.record(from: row, zoneID: zoneID, decodingFields: decodingFields))
            }
        }
        let exitRows = try await connection.query(
            """
            SELECT record_name, share_name FROM share_exits
            WHERE container = ? AND environment = ? AND owner = ? AND zone_name = ? AND change_counter > ? AND change_counter <= ?
            """,
            range
        )
        return ChangeEventRows(saved: saved, deleted: deleted, exits: exitRows.map { ($0.string(0), $0.string(1)) })
    }

    func participants(ofZones zones: Set<OwnedZone>, in container: ContainerEnvironment) async throws -> [OwnedZone: [ZoneParticipant]] {
        guard !zones.isEmpty else { return [:] }
        // The owners' and the zone names' lists select a superset (every owner with every zone
        // name), which the rows are filtered down to: both columns lead the key.
        let owners = Set(zones.map(\.owner)).sorted()
        let names = Set(zones.map(\.zoneName)).sorted()
        let rows = try await connection.query(
            """
            SELECT owner, zone_name, user_record_name, share_name FROM share_participants
            WHERE container = ? AND environment = ? AND \(owners.count == 1 ? "owner = ?" : dialect.isAmong("owner"))
              AND \(names.count == 1 ? "zone_name = ?" : dialect.isAmong("zone_name"))
              AND acceptance = 'ACCEPTED' AND role <> 'OWNER' AND user_record_name IS NOT NULL
            """,
            [
                .text(container.container), .text(container.environment.rawValue),
                owners.count == 1 ? .text(owners[0]) : .textList(owners), names.count == 1 ? .text(names[0]) : .textList(names),
            ]
        )
        var found: [OwnedZone: [ZoneParticipant]] = [:]
        for row in rows {
            let zone = OwnedZone(owner: row.string(0), zoneName: row.string(1))
            guard zones.contains(zone) else { continue }
            found[zone, default: []].append(ZoneParticipant(userRecordName: row.string(2), shareName: row.string(3)))
        }
        return found
    }

    func subscriptions(
        of users: [String],
        scope: DatabaseScope,
        in container: ContainerEnvironment
    ) async throws -> [(userRecordName: String, subscription: Subscription)] {
        guard !users.isEmpty else { return [] }
        let membership = users.count == 1 ? "user_record_name = ?" : dialect.isAmong("user_record_name")
        let rows = try await connection.query(
            """
            SELECT user_record_name, body FROM subscriptions
            WHERE container = ? AND environment = ? AND database_scope = ? AND \(membership)
            """,
            [
                .text(container.container), .text(container.environment.rawValue), .text(scope.rawValue),
                users.count == 1 ? .text(users[0]) : .textList(users),
            ]
        )
        return try rows.map { ($0.string(0), try SQLStore.subscription(fromBody: $0.string(1))) }
    }

    func publicQuerySubscriptions(
        recordTypes: [String],
        in container: ContainerEnvironment
    ) async throws -> [(userRecordName: String, subscription: Subscription)] {
        guard !recordTypes.isEmpty else { return [] }
        let rows = try await connection.query(
            """
            SELECT user_record_name, body FROM subscriptions
            WHERE container = ? AND environment = ? AND database_scope = 'public'
              AND (record_type IS NULL OR \(dialect.isAmong("record_type")))
            """,
            [.text(container.container), .text(container.environment.rawValue), .textList(recordTypes)]
        )
        return try rows.map { ($0.string(0), try SQLStore.subscription(fromBody: $0.string(1))) }
    }

    func deliver(_ drafts: [NotificationDraft], in container: ContainerEnvironment) async throws -> [InboxEntry] {
        guard !drafts.isEmpty else { return [] }
        // Entries must outlive a crash once the hub has handed them out: the commit waits for
        // its flush again, as the database is configured to (see `takingWithAudiences`).
        if takesWithAudiences { try await connection.execute("SET LOCAL synchronous_commit TO DEFAULT") }
        let containerBinds: [SQLValue] = [.text(container.container), .text(container.environment.rawValue)]
        var counts: [String: Int64] = [:]
        for draft in drafts { counts[draft.userRecordName, default: 0] += 1 }
        // Reserve each recipient's numbers: one upsert per hundred recipients.
        var next: [String: Int64] = [:]
        let users = counts.keys.sorted()
        for start in stride(from: 0, to: users.count, by: Self.rowsPerStatement) {
            let batch = users[start..<min(start + Self.rowsPerStatement, users.count)]
            var binds: [SQLValue] = []
            for user in batch { binds += containerBinds + [.text(user), .integer(counts[user] ?? 0)] }
            let rows = try await connection.query(
                """
                INSERT INTO notification_sequences (container, environment, user_record_name, last_sequence)
                VALUES \(Array(repeating: "(?, ?, ?, ?)", count: batch.count).joined(separator: ", "))
                ON CONFLICT (container, environment, user_record_name) DO UPDATE SET
                    last_sequence = notification_sequences.last_sequence + excluded.last_sequence
                RETURNING user_record_name, last_sequence
                """,
                binds
            )
            for row in rows { next[row.string(0)] = row.int(1) - (counts[row.string(0)] ?? 0) + 1 }
        }
        var entries: [InboxEntry] = []
        entries.reserveCapacity(drafts.count)
        for draft in drafts {
            let sequence = next[draft.userRecordName] ?? 1
            next[draft.userRecordName] = sequence + 1
            entries.append(
                InboxEntry(
                    container: container,
                    userRecordName: draft.userRecordName,
                    sequence: sequence,
                    notificationID: draft.notificationID,
                    originDeviceID: draft.originDeviceID,
                    createdAt: now,
                    payload: draft.payload,
                    collapseID: draft.collapseID
                )
            )
        }
        for start in stride(from: 0, to: entries.count, by: Self.rowsPerStatement) {
            let batch = entries[start..<min(start + Self.rowsPerStatement, entries.count)]
            var binds: [SQLValue] = []
            for entry in batch {
                binds +=
                    containerBinds + [
                        .text(entry.userRecordName), .integer(entry.sequence), .text(entry.notificationID),
                        entry.originDeviceID.map(SQLValue.text) ?? .null, .text(String(decoding: entry.payload, as: UTF8.self)),
                        .integer(entry.createdAt), entry.collapseID.map(SQLValue.text) ?? .null,
                    ]
            }
            try await connection.execute(
                """
                INSERT INTO notification_inbox (container, environment, user_record_name, sequence, notification_id,
                    origin_device, payload, created_at, collapse_id)
                VALUES \(Array(repeating: "(?, ?, ?, ?, ?, ?, ?, ?, ?)", count: batch.count).joined(separator: ", "))
                """,
                binds
            )
        }
        return entries
    }

    func deleteSubscription(_ id: String, of subscriber: Subscriber) async throws {
        try await connection.execute(
            """
            DELETE FROM subscriptions
            WHERE container = ? AND environment = ? AND database_scope = ? AND user_record_name = ? AND subscription_id = ?
            """,
            SQLStore.binds(subscriber) + [.text(id)]
        )
    }

    func finish(_ events: [ChangeEvent]) async throws {
        try await deleteEvents(
            events.map { event in
                EventKey(
                    zone: ZoneKey(
                        container: event.tenant.container,
                        environment: event.tenant.environment.rawValue,
                        owner: event.tenant.owner,
                        zoneName: event.zoneName
                    ),
                    counterThrough: event.counterThrough
                )
            }
        )
    }

    /// Deletes outbox rows by key: one statement per zone, with the zone's counters, so exactly
    /// these rows, never another instance's.
    private func deleteEvents(_ keys: [EventKey]) async throws {
        var zones: [ZoneKey] = []
        var countersByZone: [ZoneKey: [Int64]] = [:]
        for key in keys {
            if countersByZone[key.zone] == nil { zones.append(key.zone) }
            countersByZone[key.zone, default: []].append(key.counterThrough)
        }
        for zone in zones {
            let counters = countersByZone[zone] ?? []
            let membership = counters.count == 1 ? "counter_through = ?" : dialect.isAmong("counter_through")
            try await connection.execute(
                """
                DELETE FROM change_events
                WHERE container = ? AND environment = ? AND owner = ? AND zone_name = ? AND \(membership) AND \(turn)
                """,
                [
                    .text(zone.container), .text(zone.environment), .text(zone.owner), .text(zone.zoneName),
                    counters.count == 1 ? .integer(counters[0]) : .integerList(counters),
                ]
            )
        }
    }

    /// An outbox row's zone, as stored: a row whose environment no longer reads is deleted too.
    private struct ZoneKey: Hashable {
        var container: String
        var environment: String
        var owner: String
        var zoneName: String

        init(container: String, environment: String, owner: String, zoneName: String) {
            self.container = container
            self.environment = environment
            self.owner = owner
            self.zoneName = zoneName
        }

        /// From an outbox row as `takeEvents` reads it: the kind, then the zone's key columns.
        init(row: SQLRow) {
            self.init(container: row.string(1), environment: row.string(2), owner: row.string(3), zoneName: row.string(4))
        }
    }

    private struct EventKey {
        var zone: ZoneKey
        var counterThrough: Int64
    }

    func records(named names: [String], inZone zoneName: String, of tenant: Tenant) async throws -> [String: Record] {
        guard !names.isEmpty else { return [:] }
        let codec = RecordRowCodec(cipher: cipher, tenant: tenant, zoneName: zoneName)
        return try await SQLStore.liveRecords(named: names, zone: zoneName, tenant: tenant, on: connection, dialect: dialect, codec: codec)
    }

    func firstRecord(matching query: Query, inZone zoneName: String, of tenant: Tenant) async throws -> Record? {
        let container = ContainerEnvironment(container: tenant.container, environment: tenant.environment)
        let fields = try await SQLStore.fields(ofRecordType: query.recordType, in: container, on: connection)
        let query = query.namingParent(typeHasParentField: fields[NameKey(SystemField.parentFieldName)] != nil)
        // A filter on a field no record of the type has, or with a value of another kind than
        // the field's, matches nothing; asking the database would be an error on PostgreSQL.
        for filter in query.filters {
            let isList = filter.comparator == .in || filter.comparator == .notIn
            if case .list = filter.value, !isList { return nil }
            if isList, filter.value.type.isList == false { return nil }
            let type: FieldType? =
                switch SystemField(rawValue: filter.fieldName) {
                case .createTime, .modTime: .timestamp
                case .createdBy, .modifiedBy, .recordID: .string
                case .parent: .reference
                // A token filter searches the words of strings and string lists, or of every
                // string field (allTokens), always with a string.
                case nil where filter.comparator.searchesWords && filter.fieldName == Filter.allTokensField: .string
                case nil where filter.comparator.searchesWords && fields[NameKey(filter.fieldName)]?.type == .stringList: .string
                case nil: fields[NameKey(filter.fieldName)]?.type
                }
            guard let type, Self.comparable(type, with: filter.value) else { return nil }
        }
        let request = RecordQuery(tenant: tenant, zoneName: zoneName, query: query, limit: 1, fieldTypes: fields.mapValues(\.type))
        var builder = QuerySQLBuilder(request: request, dialect: dialect)
        // A lookup the store cannot express matches nothing; it must not fail the dispatch.
        guard let (sql, binds) = try? builder.build() else { return nil }
        let codec = RecordRowCodec(cipher: cipher, tenant: tenant, zoneName: zoneName)
        // A record query: planned for each run, as the query endpoint's are.
        return try await connection.query(sql, binds, reusingPlan: false).first.map {
            try codec.record(from: $0, zoneID: ZoneID(zoneName: zoneName, ownerRecordName: tenant.owner))
        }
    }

    func announce(_ entries: [InboxEntry], from instance: String) async throws {
        // Only PostgreSQL has other instances to tell; its NOTIFY is delivered on commit.
        guard dialect.announcesAcrossInstances, !entries.isEmpty else { return }
        var seen: Set<InboxRecipient> = []
        var recipients: [InboxRecipient] = []
        for entry in entries {
            let recipient = InboxRecipient(container: entry.container, userRecordName: entry.userRecordName)
            if seen.insert(recipient).inserted { recipients.append(recipient) }
        }
        for payload in InboxAnnouncementCoding.payloads(of: InboxAnnouncement(instance: instance, recipients: recipients)) {
            _ = try await connection.query("SELECT pg_notify(\(SchemaChannel.nameSQL), ?)", [.text(InboxAnnouncementCoding.channel), .text(payload)])
        }
    }

    /// Whether values of a field of `type` compare with `value` in SQL: numbers with numbers,
    /// text-like values (strings, references, bytes) with text; lists of those element-wise.
    private static func comparable(_ type: FieldType, with value: FieldValue) -> Bool {
        if case .list(_, let elements) = value { return elements.allSatisfy { comparable(type, with: $0) } }
        guard let key = SortKeyValue(value) else { return false }
        switch (type, key) {
        case (.int64, .integer), (.int64, .real), (.timestamp, .integer), (.double, .integer), (.double, .real): return true
        case (.string, .text), (.reference, .text), (.bytes, .text): return true
        default: return false
        }
    }
}
