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
        let tenant = try tenant(for: access)
        let zoneName = try zoneName(of: zoneID, in: tenant, access: access)
        let user = try writer(access)
        if access.scope == .shared { throw NimbusError.zoneNotFound }

        var named = operations
        for index in named.indices where named[index].recordName?.isEmpty ?? true {
            guard named[index].kind == .create else { throw .badRequest("operation \(index) has no recordName") }
            named[index].recordName = makeRecordName()
        }
        let names = named.compactMap(\.recordName)
        guard Set(names).count == names.count else { throw .badRequest("a request may have only one operation per record") }

        let container = ContainerEnvironment(container: tenant.container, environment: tenant.environment)
        let baseContext = RecordBatchPlanner.Context(
            zoneID: reportedZoneID(zoneName, of: tenant),
            user: user,
            now: now(),
            onlyCreatorMayChange: tenant.isPublic,
            isAtomic: atomic && zoneName != ZoneID.defaultZoneName,
            schemas: [:]
        )
        let planned = named
        let registry = schema
        // Read the schema outside the write, so the shared transaction rarely waits on a read.
        let known = try await store { try await registry.fields(of: Set(named.compactMap(\.recordType)), in: container) }
        let outcome = try await store {
            try await records.write(zone: zoneName, of: tenant) { transaction in
                let snapshot = try await Self.snapshot(for: planned, in: transaction)
                var context = baseContext
                let (schemas, readInTransaction) = try await Self.schemas(
                    for: planned,
                    existing: snapshot.records,
                    known: known,
                    transaction: transaction
                )
                context.schemas = schemas
                var planner = RecordBatchPlanner(context: context, existing: snapshot.records, edges: snapshot.edges)
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
                return (results: try await Self.apply(plan, in: transaction), schema: learned)
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
        let tenant = try tenant(for: access)
        let zoneName = try zoneName(of: zoneID, in: tenant, access: access)
        if access.scope == .shared { throw NimbusError.zoneNotFound }
        let found = try await store { try await records.records(named: names, inZone: zoneName, of: tenant) }
        return names.map { name in
            guard var record = found[name] else { return .failure(NimbusError.recordNotFound) }
            record.recordID.zoneID = reportedZoneID(zoneName, of: tenant)
            return .success(record)
        }
    }

    // MARK: - Private

    /// Writes a plan in operation order, batching runs of saves and of deletes, and returns the
    /// results with each saved record as the store saved it (with its new change tag).
    private static func apply(_ plan: RecordBatchPlanner.Plan, in transaction: any ZoneTransaction) async throws -> [RecordResult] {
        var results = plan.results
        var index = 0
        while index < plan.writes.count {
            var saves: [(Record, Int)] = []
            var deletes: [Tombstone] = []
            while index < plan.writes.count, case .save(let record, let resultIndex) = plan.writes[index], deletes.isEmpty {
                saves.append((record, resultIndex))
                index += 1
            }
            while saves.isEmpty, index < plan.writes.count, case .delete(let tombstone) = plan.writes[index] {
                deletes.append(tombstone)
                index += 1
            }
            if !saves.isEmpty {
                let saved = try await transaction.save(saves.map(\.0))
                for ((_, resultIndex), record) in zip(saves, saved) { results[resultIndex] = .saved(record) }
            } else {
                try await transaction.delete(deletes)
            }
        }
        return results
    }

    /// Everything the planner needs from the zone: the named records, the targets of their
    /// `VALIDATE` references, and the records that refer to records being deleted, transitively.
    private static func snapshot(
        for operations: [RecordOperation],
        in transaction: any ZoneTransaction
    ) async throws -> (records: [String: Record], edges: [ReferenceEdge]) {
        var wanted = Set(operations.compactMap(\.recordName))
        for operation in operations {
            for input in operation.fields.values {
                for reference in input.value?.references ?? [] where reference.action == .validate {
                    wanted.insert(reference.recordName)
                }
            }
        }
        var records = try await transaction.records(named: Array(wanted))
        var edges: [ReferenceEdge] = []
        // A batch that deletes anything may cascade through records it also saves (gaining a
        // DELETE_SELF reference on the way), so every record it names starts the walk.
        var frontier = operations.contains(where: \.kind.isDelete) ? operations.compactMap(\.recordName) : []
        var visited = Set(frontier)
        while !frontier.isEmpty {
            let found = try await transaction.referrers(to: frontier)
            edges += found
            let sources = Set(found.map(\.sourceName)).subtracting(visited)
            visited.formUnion(sources)
            let missing = sources.filter { records[$0] == nil }
            if !missing.isEmpty {
                records.merge(try await transaction.records(named: Array(missing))) { old, _ in old }
            }
            frontier = Array(sources)
        }
        return (records, edges)
    }

    /// The schema of every record type the batch saves. The cache answers for fields it knows
    /// (a field never changes type); a type with a field the cache lacks is read inside the
    /// transaction, which also sees fields added by earlier writers of the same commit (and by
    /// other server instances).
    private static func schemas(
        for operations: [RecordOperation],
        existing: [String: Record],
        known: [String: [String: FieldSchema]],
        transaction: any ZoneTransaction
    ) async throws -> (schemas: [String: [String: FieldSchema]], readInTransaction: Set<String>) {
        var fieldsByType: [String: Set<String>] = [:]
        for operation in operations where !operation.kind.isDelete {
            guard let type = operation.recordType ?? operation.recordName.flatMap({ existing[$0]?.recordType }) else { continue }
            fieldsByType[type, default: []].formUnion(operation.fields.keys)
        }
        var schemas: [String: [String: FieldSchema]] = [:]
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
