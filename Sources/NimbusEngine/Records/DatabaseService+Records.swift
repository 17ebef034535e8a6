//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import NimbusModel
import NimbusStore

extension DatabaseService {
    /// Applies the operations of a `records/modify` request to one zone, in order.
    ///
    /// Per-operation failures come back as ``RecordResult/failed(recordName:_:)``; the request
    /// as a whole fails only when it cannot be run at all. In a custom zone with `atomic` set,
    /// either every operation is applied or none is.
    ///
    /// - Throws: `.limitExceeded` over 200 operations, `.badRequest` when two operations name one
    ///   record, `.zoneNotFound`, `.authenticationRequired` for anonymous callers.
    public func modifyRecords(
        _ operations: [RecordOperation],
        inZone zoneID: ZoneID?,
        atomic: Bool,
        access: DatabaseAccess
    ) async throws(NimbusError) -> [RecordResult] {
        guard operations.count <= Self.maximumOperations else {
            throw .limitExceeded("a request may have at most \(Self.maximumOperations) operations, this one has \(operations.count)")
        }
        let user = try writer(access)
        let target = try await target(zone: zoneID, access: access)
        let tenant = target.tenant
        let zoneName = target.zoneName

        var named = operations
        for index in named.indices {
            if named[index].recordName?.isEmpty ?? true {
                guard named[index].kind == .create else { throw .badRequest("operation \(index) has no recordName") }
                named[index].recordName = makeRecordName()
            }
            // CloudKit's own example spells it `cloudKit.share`; one spelling is stored.
            if let type = named[index].recordType, Share.isShareType(type) { named[index].recordType = Share.recordType }
        }
        let names = named.compactMap(\.recordName)
        guard Set(names.map { NameKey($0) }).count == names.count else { throw .badRequest("a request may have only one operation per record") }

        let container = ContainerEnvironment(container: tenant.container, environment: tenant.environment)
        let sharing = SharingContext(
            scope: access.scope,
            owner: tenant.owner,
            isCustomZone: !tenant.isPublic && zoneName != ZoneID.defaultZoneName,
            access: target.shareAccess,
            users: try await participantUsers(in: named, container: tenant.container),
            makeShortGUID: ShareIdentifiers.shortGUID,
            makeParticipantID: ShareIdentifiers.participantID
        )
        let savesShares = named.contains { $0.share != nil || $0.recordType == Share.recordType || $0.recordName == Share.zoneShareName }
        let baseContext = RecordBatchPlanner.Context(
            zoneID: reportedZoneID(zoneName, of: tenant),
            user: user,
            now: clock.millisecondsSince1970,
            onlyCreatorMayChange: tenant.isPublic && !(access.isModeration && access.scope == .public),
            isAtomic: atomic && zoneName != ZoneID.defaultZoneName,
            schemas: [:],
            sharing: sharing,
            assets: AssetRedemption(tokens: AssetTokens(sealer: sealer), tenant: tenant, zoneName: zoneName, now: clock.millisecondsSince1970)
        )
        let planned = named
        let registry = schema
        let deviceID = access.caller.deviceID
        // Read the schema outside the write, so the shared transaction rarely waits on a read.
        let known = try await store { try await registry.fields(of: Set(named.compactMap(\.recordType)), in: container) }
        let outcome = try await store {
            try await records.write(zone: zoneName, of: tenant) { transaction in
                let snapshot = try await Self.snapshot(for: planned, in: transaction)
                var context = baseContext
                if savesShares { context.sharing.shareKinds = try await transaction.shareKinds() }
                let (schemas, readInTransaction) = try await Self.schemas(
                    for: planned,
                    existing: snapshot.records,
                    known: known,
                    transaction: transaction
                )
                context.schemas = schemas
                var planner = RecordBatchPlanner(
                    context: context,
                    existing: snapshot.records,
                    shares: snapshot.shares,
                    edges: snapshot.edges,
                    adoptive: snapshot.adoptive
                )
                let plan = planner.plan(planned)
                // New fields join the schema in the same transaction as the records that bring them.
                for (recordType, fields) in plan.newFields {
                    try await transaction.addFields(fields, toRecordType: recordType)
                }
                // What the cache should learn once this commits: types read here, or that gained fields.
                var learned = schemas.filter { readInTransaction.contains($0.key) }
                for (recordType, fields) in plan.newFields {
                    learned[recordType, default: schemas[recordType] ?? [:]].merge(fields) { old, _ in old }
                }
                let note = Self.changeNote(of: plan, snapshot: snapshot.records, shares: snapshot.shares, writer: user, deviceID: deviceID)
                let results = try await Self.apply(plan, recordingChange: note, in: transaction)
                return (results: results, schema: learned)
            }
        }
        // Committed: what the transaction read and added is the schema now.
        for (recordType, fields) in outcome.schema {
            await registry.remember(fields, for: recordType, in: container)
        }
        return outcome.results
    }

    /// Returns records by name from one zone, in request order; missing ones as `.unknownItem`.
    public func lookupRecords(
        named names: [String],
        inZone zoneID: ZoneID?,
        access: DatabaseAccess
    ) async throws(NimbusError) -> [Result<Record, NimbusError>] {
        guard names.count <= Self.maximumOperations else {
            throw .limitExceeded("a request may look up at most \(Self.maximumOperations) records, this one asks for \(names.count)")
        }
        let target = try await target(zone: zoneID, access: access)
        let valid = names.filter(RecordNameRule.isValid)
        var found = try await store { try await records.records(named: valid, inZone: target.zoneName, of: target.tenant) }
        if let shareAccess = target.shareAccess {
            // Outside the caller's shares is the same as absent.
            found = found.filter { shareAccess.canRead($0.value) }
        }
        // The records in the order asked for, each copied once out of the store's answer and
        // given the zone as the caller knows it where it lies: a record is a large value, and
        // one changed in a variable of its own is copied again when it moves on.
        var ordered: [Record] = []
        ordered.reserveCapacity(found.count)
        let positions = names.map { name -> Int? in
            guard let record = found[NameKey(name)] else { return nil }
            ordered.append(record)
            return ordered.count - 1
        }
        let zone = reportedZoneID(target.zoneName, of: target.tenant)
        for index in ordered.indices { ordered[index].recordID.zoneID = zone }
        let detailed = try await withShareDetails(ordered, in: target, reader: access.caller.userRecordName)
        return positions.map { position in position.map { .success(detailed[$0]) } ?? .failure(NimbusError.recordNotFound) }
    }

    // MARK: - Private

    /// What the notification outbox keeps of a write beside its rows: who wrote from where,
    /// which saves were creations, the deleted records as they were, and the participants the
    /// write took out of a share (removed, left, or the share deleted), whose shared database
    /// changed though they can no longer read what changed.
    private static func changeNote(
        of plan: RecordBatchPlanner.Plan,
        snapshot: [NameKey: Record],
        shares: [NameKey: Share],
        writer: String,
        deviceID: String?
    ) -> ChangeNote {
        var created: Set<NameKey> = []
        var deleted: [Record] = []
        var departed: Set<String> = []
        func accepted(_ share: Share?) -> Set<String> {
            Set(
                (share?.participants ?? []).filter { $0.acceptance == .accepted && $0.role != .owner }.compactMap(\.userRecordName)
            )
        }
        for write in plan.writes {
            switch write {
            case .save(let record, _):
                let name = record.recordID.recordName
                if snapshot[NameKey(name)] == nil { created.insert(NameKey(name)) }
            case .delete(let tombstone):
                if var record = snapshot[NameKey(tombstone.recordName)] {
                    record.encryptedFields = [:]
                    deleted.append(record)
                }
            case .saveShare(let share):
                departed.formUnion(accepted(shares[NameKey(share.recordName)]).subtracting(accepted(share)))
            case .deleteShare(let name):
                departed.formUnion(accepted(shares[NameKey(name)]))
            default:
                break
            }
        }
        return ChangeNote(writer: writer, deviceID: deviceID, created: created, deleted: deleted, formerParticipants: departed.sorted())
    }

    /// Writes a plan in operation order, batching runs of saves and of deletes, and returns the
    /// results with each saved record as the store saved it (with its new change tag). Last, it
    /// puts the changes in the outbox with `note`: with the final run of saves when the plan
    /// ends with one, which lets the store write the row in the same statement.
    private static func apply(
        _ plan: RecordBatchPlanner.Plan,
        recordingChange note: ChangeNote,
        in transaction: any ZoneTransaction
    ) async throws -> [RecordResult] {
        var results = plan.results
        var index = 0
        var recorded = false
        while index < plan.writes.count {
            // A run of saves, and the result each answers: two arrays, so the records go to the
            // store as they are, without being copied out of pairs (a record is a large value).
            var saves: [Record] = []
            var answers: [Int?] = []
            var deletes: [Tombstone] = []
            while index < plan.writes.count, case .save(let record, let resultIndex) = plan.writes[index], deletes.isEmpty {
                saves.append(record)
                answers.append(resultIndex)
                index += 1
            }
            while saves.isEmpty, index < plan.writes.count, case .delete(let tombstone) = plan.writes[index] {
                deletes.append(tombstone)
                index += 1
            }
            if !saves.isEmpty {
                recorded = index == plan.writes.count
                let saved = try await recorded ? transaction.save(saves, recordingChange: note) : transaction.save(saves)
                for (position, resultIndex) in answers.enumerated() where position < saved.count {
                    if let resultIndex { results[resultIndex] = .saved(saved[position]) }
                }
            } else if !deletes.isEmpty {
                try await transaction.delete(deletes)
            } else {
                switch plan.writes[index] {
                case .saveShare(let share): try await transaction.saveShare(share)
                case .deleteShare(let name): try await transaction.deleteShare(named: name)
                case .moveDescendants(let root, let from, let to): try await transaction.moveDescendants(of: root, from: from, to: to)
                case .save, .delete: break
                }
                index += 1
            }
        }
        if !recorded { try await transaction.recordChange(note) }
        return results
    }

    /// Everything the planner needs from the zone: the named records, the targets of their
    /// `VALIDATE` references, and the records that refer to records being deleted, transitively.
    private static func snapshot(
        for operations: [RecordOperation],
        in transaction: any ZoneTransaction
    ) async throws -> (records: [NameKey: Record], shares: [NameKey: Share], edges: [ReferenceEdge], adoptive: Set<NameKey>) {
        // Names as keys (``NameKey``): two spellings of one name are two records.
        var wanted = Set(operations.compactMap(\.recordName).map { NameKey($0) })
        for operation in operations {
            for input in operation.fields.values {
                for reference in input.value?.references ?? [] where reference.action == .validate {
                    wanted.insert(NameKey(reference.recordName))
                }
            }
            // A new parent decides which share the record joins; a new share needs its root.
            if case .set(let parent) = operation.parent { wanted.insert(NameKey(parent)) }
            if let root = operation.share?.rootRecordName { wanted.insert(NameKey(root)) }
        }
        var records = try await transaction.records(named: wanted.map(\.string).filter(RecordNameRule.isValid))
        var edges: [ReferenceEdge] = []
        // A batch that deletes anything may cascade through records it also saves (gaining a
        // DELETE_SELF reference on the way), so every record it names starts the walk.
        var frontier = operations.contains(where: \.kind.isDelete) ? operations.compactMap(\.recordName).filter(RecordNameRule.isValid) : []
        var visited = Set(frontier.map { NameKey($0) })
        while !frontier.isEmpty {
            let found = try await transaction.referrers(to: frontier)
            edges += found
            let sources = Set(found.map { NameKey($0.sourceName) }).subtracting(visited)
            visited.formUnion(sources)
            let missing = sources.filter { records[$0] == nil }
            if !missing.isEmpty {
                records.merge(try await transaction.records(named: missing.map(\.string))) { old, _ in old }
            }
            frontier = sources.map(\.string)
        }
        let shares = try await shareSnapshot(of: &records, in: transaction)
        // Names the batch creates that live records already name as parent: one query for all.
        let absent = operations.compactMap(\.recordName).filter { records[NameKey($0)] == nil && RecordNameRule.isValid($0) }
        let adoptive = Set(try await transaction.parentsOfLiveRecords(among: absent).map { NameKey($0) })
        return (records, shares, edges, adoptive)
    }

    /// The shares the batch may touch: those of share records and of share roots it read, with
    /// their roots and the roots' parents (where an unshared hierarchy goes).
    private static func shareSnapshot(of records: inout [NameKey: Record], in transaction: any ZoneTransaction) async throws -> [NameKey: Share] {
        var shareNames = Set(records.values.compactMap(\.shareRecordName).map { NameKey($0) })
        shareNames.formUnion(records.values.filter { Share.isShareType($0.recordType) }.map { NameKey($0.recordID.recordName) })
        guard !shareNames.isEmpty else { return [:] }
        let shares = try await transaction.shares(named: shareNames.map(\.string))
        var missing = Set(shares.values.compactMap { $0.rootRecordName.map { NameKey($0) } }).union(shares.keys).filter { records[$0] == nil }
        if !missing.isEmpty { records.merge(try await transaction.records(named: missing.map(\.string))) { old, _ in old } }
        missing = Set(shares.values.compactMap { $0.rootRecordName.flatMap { records[NameKey($0)]?.parentRecordName }.map { NameKey($0) } })
            .filter { records[$0] == nil }
        if !missing.isEmpty { records.merge(try await transaction.records(named: missing.map(\.string))) { old, _ in old } }
        return shares
    }

    /// The schema of every record type the batch saves. The cache answers for fields it knows
    /// (a field never changes type); a type with a field the cache lacks is read inside the
    /// transaction, which also sees fields added by earlier writers of the same commit (and by
    /// other server instances).
    private static func schemas(
        for operations: [RecordOperation],
        existing: [NameKey: Record],
        known: [String: [NameKey: FieldSchema]],
        transaction: any ZoneTransaction
    ) async throws -> (schemas: [String: [NameKey: FieldSchema]], readInTransaction: Set<String>) {
        var fieldsByType: [String: Set<NameKey>] = [:]
        for operation in operations where !operation.kind.isDelete {
            guard let type = operation.recordType ?? operation.recordName.flatMap({ existing[NameKey($0)]?.recordType }) else { continue }
            fieldsByType[type, default: []].formUnion(operation.fields.keys)
        }
        var schemas: [String: [NameKey: FieldSchema]] = [:]
        var readInTransaction: Set<String> = []
        for (type, names) in fieldsByType {
            var fields = known[type] ?? [:]
            if names.contains(where: { fields[$0] == nil }) {
                fields.merge(try await transaction.fields(ofRecordType: type)) { _, stored in stored }
                readInTransaction.insert(type)
            }
            schemas[type] = fields
        }
        return (schemas, readInTransaction)
    }
}
