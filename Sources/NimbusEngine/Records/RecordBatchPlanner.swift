//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusModel
import NimbusStore

/// Applies the operations of one `records/modify` request to a snapshot of the zone, in order,
/// without I/O: the result says what each operation did and what the store must write.
///
/// Operations see the effects of earlier ones (a record created by the first can be the
/// `VALIDATE` target of the second). An atomic batch with any failure writes nothing: the
/// failing operations keep their errors and every other one reports `ATOMIC_ERROR`.
struct RecordBatchPlanner {
    struct Context {
        var zoneID: ZoneID
        var user: String
        var now: Int64
        /// Whether records may only be changed by their creator (the public database).
        var onlyCreatorMayChange: Bool
        var isAtomic: Bool
        /// The schema of each record type the batch touches, as far as it is known.
        var schemas: [String: [NameKey: FieldSchema]]
        /// What sharing needs: who is writing through which database, and the shares involved.
        var sharing: SharingContext
        /// Turns the asset values clients send into stored ones.
        var assets: AssetRedemption
    }

    struct Plan {
        var results: [RecordResult]
        /// What the store must write, in operation order (a cascade follows its delete).
        var writes: [Write]
        /// Fields that successful saves introduce, by record type: the schema gains them in the
        /// same transaction, so a failed or refused operation never shapes the schema.
        var newFields: [String: [NameKey: FieldSchema]]
    }

    /// One write of a plan.
    enum Write {
        /// Save a record; its saved form answers the operation at `resultIndex`, if any (a
        /// share's root saved because its share was, answers nothing).
        case save(Record, resultIndex: Int?)
        /// Delete a record (an operation's own, or one of its `DELETE_SELF` cascade).
        case delete(Tombstone)
        /// Create or replace a share and its participants.
        case saveShare(Share)
        /// Remove a share and its participants.
        case deleteShare(String)
        /// Move a record's descendants from one share's hierarchy to another's.
        case moveDescendants(of: String, from: String?, to: String?)
    }

    let context: Context
    /// The schema as the batch goes: earlier saves' new fields included.
    private var schemas: [String: [NameKey: FieldSchema]]
    /// New fields of the operation being planned, kept only if it succeeds.
    private var pendingFields: (recordType: String, fields: [NameKey: FieldSchema])?
    /// The zone's state as the batch goes: `nil` means deleted in this batch.
    var state: [NameKey: Record?]
    /// Shares as the batch goes, by share record name: `nil` means deleted in this batch.
    var shares: [NameKey: Share?]
    /// References the server acts on, committed ones and those of records saved in this batch.
    private var edges: [ReferenceEdge]
    /// Where each record saved so far in the batch is in ``Plan/writes``, so a later share
    /// operation can give its root the `share` reference in the same write.
    var savedAt: [NameKey: Int] = [:]
    /// Names of records the batch creates that live records already name as parent (left
    /// beneath a deleted parent of that name): the new record adopts them into its share.
    private let adoptive: Set<NameKey>
    /// The plan so far.
    var plan = Plan(results: [], writes: [], newFields: [:])
    /// Share removals a delete caused (its root was deleted), written after its tombstones.
    private var cascadedShareWrites: [Write] = []

    init(
        context: Context,
        existing: [NameKey: Record],
        shares: [NameKey: Share],
        edges: [ReferenceEdge],
        adoptive: Set<NameKey> = []
    ) {
        self.context = context
        self.adoptive = adoptive
        self.schemas = context.schemas
        self.state = existing.mapValues { Optional($0) }
        self.shares = shares.mapValues { Optional($0) }
        self.edges = edges
    }

    mutating func plan(_ operations: [RecordOperation]) -> Plan {
        // Sized once: growing these a record at a time rehashed and moved whole records.
        state.reserveCapacity(state.count + operations.count)
        savedAt.reserveCapacity(operations.count)
        plan.results.reserveCapacity(operations.count)
        plan.writes.reserveCapacity(operations.count)
        for operation in operations {
            let name = operation.recordName ?? ""
            pendingFields = nil
            do {
                try Self.validateNames(of: operation, name: name)
                if isShareOperation(operation, name: name) {
                    try planShare(operation, name: name)
                } else if operation.kind.isDelete {
                    let deleted = try delete(operation, name: name)
                    plan.results.append(.deleted(recordName: name, recordType: deleted.first?.recordType ?? ""))
                    plan.writes += deleted.map(Write.delete) + cascadedShareWrites
                    cascadedShareWrites = []
                } else {
                    let (record, previousShare) = try save(operation, name: name)
                    appendSave(record, previousShare: previousShare)
                }
            } catch {
                plan.results.append(.failed(recordName: name, error))
            }
        }
        let failed = plan.results.contains { if case .failed = $0 { true } else { false } }
        if context.isAtomic && failed {
            plan.results = plan.results.map { result in
                switch result {
                case .failed: result
                case .saved(let record):
                    .failed(recordName: record.recordID.recordName, Self.atomicFailure)
                case .deleted(let name, _): .failed(recordName: name, Self.atomicFailure)
                }
            }
            plan.writes = []
            plan.newFields = [:]
        }
        return plan
    }

    /// Names reach SQL and other clients: the record's, its type's, its parent's.
    private static func validateNames(of operation: RecordOperation, name: String) throws(NimbusError) {
        if let violation = RecordNameRule.violation(in: name, what: "recordName") { throw .badRequest(violation) }
        if let type = operation.recordType, let violation = RecordNameRule.violation(in: type, what: "recordType") {
            throw .badRequest(violation)
        }
        if case .set(let parent) = operation.parent, let violation = RecordNameRule.violation(in: parent, what: "parent") {
            throw .badRequest(violation)
        }
    }

    /// The answer to a create of a name in use, the same whether the caller may see the record.
    static let nameTaken = NimbusError(.alreadyExists, "record already exists")

    private static let atomicFailure = NimbusError(.atomicFailure, "another operation of the atomic batch failed")

    // MARK: - Saves

    /// Records a successful save in the plan, with the moves of its descendants if it changed
    /// share (and the new fields it brings).
    mutating func appendSave(_ record: Record, previousShare: String?, answers: Bool = true) {
        let name = record.recordID.recordName
        savedAt[NameKey(name)] = plan.writes.count
        plan.writes.append(.save(record, resultIndex: answers ? plan.results.count : nil))
        if answers { plan.results.append(.saved(record)) }
        if previousShare != record.containingShare || adoptive.contains(NameKey(name)) {
            plan.writes.append(.moveDescendants(of: name, from: previousShare, to: record.containingShare))
        }
        if let pending = pendingFields, !pending.fields.isEmpty {
            schemas[pending.recordType, default: [:]].merge(pending.fields) { old, _ in old }
            plan.newFields[pending.recordType, default: [:]].merge(pending.fields) { old, _ in old }
        }
        pendingFields = nil
    }

    /// Plans a save of an ordinary record; returns it with the share that held it before.
    mutating func save(_ operation: RecordOperation, name: String) throws(NimbusError) -> (Record, previousShare: String?) {
        let isHidden = try checkSharedWrite(operation, current: state[NameKey(name)] ?? nil)
        let current = isHidden ? nil : state[NameKey(name)] ?? nil
        switch operation.kind {
        case .update, .replace:
            try Self.checkChangeTag(of: operation, against: current)
        case .create:
            if current != nil { throw Self.nameTaken }
        default:
            break
        }
        if let current, context.onlyCreatorMayChange, current.created.userRecordName != context.user {
            throw .permissionFailure("only the record's creator may change it")
        }
        if let current, let type = operation.recordType, type != current.recordType {
            throw .badRequest("record type cannot change from '\(current.recordType)' to '\(type)'")
        }
        guard let recordType = current?.recordType ?? operation.recordType, !recordType.isEmpty else {
            throw .badRequest("a new record needs a recordType")
        }
        let stamp = ChangeStamp(timestamp: context.now, userRecordName: context.user)
        let recordID = RecordID(recordName: name, zoneID: context.zoneID)
        var record = current ?? Record(recordID: recordID, recordType: recordType, created: stamp, modified: stamp)
        record.modified = stamp
        let merges = operation.kind == .update || operation.kind == .forceUpdate
        if !merges {
            record.fields = [:]
            record.encryptedFields = [:]
        }
        try apply(operation.fields, to: &record)
        try redeemAssets(of: operation, in: &record, current: current)
        switch operation.parent {
        case .set(let parent):
            guard parent != name else { throw .badRequest("a record cannot be its own parent") }
            record.parentRecordName = parent
        case .clear: record.parentRecordName = nil
        case .unchanged: if !merges { record.parentRecordName = nil }
        }
        record.containingShare = containingShare(of: record, current: current)
        try checkSharedPlacement(of: record, current: current)
        // Only references this operation sets are checked: the ones the record already had were
        // checked when they were saved (and a VALIDATE target cannot be deleted meanwhile).
        try validateReferences(operation.fields.values.compactMap(\.value).flatMap(\.references))
        if isHidden { throw Self.nameTaken }
        state[NameKey(name)] = record
        edges.removeAll { $0.sourceName.isSameName(as: name) }
        edges += record.references.filter { $0.action != .none }.map {
            ReferenceEdge(sourceName: name, targetName: $0.recordName, action: $0.action)
        }
        // A new record has no descendants to move (its share is all that changes).
        return (record, current == nil ? record.containingShare : current?.containingShare)
    }

    /// Replaces the asset values the operation sets with their stored form (see
    /// ``AssetRedemption``); values the record keeps were stored already.
    private func redeemAssets(of operation: RecordOperation, in record: inout Record, current: Record?) throws(NimbusError) {
        for name in operation.fields.keys {
            guard let value = record.fields[name], value.isAsset else { continue }
            record.fields[name] = try context.assets.stored(
                value,
                field: name.string,
                record: record.recordID.recordName,
                previous: current?.fields[name]
            )
        }
    }

    mutating func apply(_ inputs: [NameKey: FieldInput], to record: inout Record) throws(NimbusError) {
        let schema = schemas[record.recordType] ?? [:]
        var introduced: [NameKey: FieldSchema] = [:]
        for (name, input) in inputs {
            if let violation = FieldRules.nameViolation(name.string) { throw .badRequest(violation) }
            record.fields[name] = nil
            record.encryptedFields[name] = nil
            guard var value = input.value else { continue }
            if let violation = FieldRules.valueViolation(value, field: name.string) { throw .badRequest(violation) }
            if let known = schema[name] {
                if known.isEncrypted != input.isEncrypted {
                    throw .badRequest("field '\(name)' is \(known.isEncrypted ? "" : "not ")encrypted in the schema")
                }
                guard let typed = input.isTypeExplicit ? (value.type == known.type ? value : nil) : FieldRules.coerce(value, to: known.type) else {
                    throw .badRequest("field '\(name)' is \(known.type.rawValue), not \(value.type.rawValue)")
                }
                value = typed
            } else {
                introduced[name] = FieldSchema(type: value.type, isEncrypted: input.isEncrypted)
            }
            if input.isEncrypted {
                guard value.references.isEmpty, ![FieldType.asset, .assetList].contains(value.type) else {
                    throw .badRequest("field '\(name)': references and assets cannot be encrypted")
                }
                record.encryptedFields[name] = value
            } else {
                record.fields[name] = value
            }
        }
        pendingFields = (record.recordType, introduced)
        let size = (record.fields.values.map(\.estimatedSize) + record.encryptedFields.values.map(\.estimatedSize)).reduce(0, +)
        if size > DatabaseService.maximumRecordSize {
            throw .limitExceeded("record '\(record.recordID.recordName)' is over the 1 MB record size limit")
        }
    }

    private func validateReferences(_ references: [Reference]) throws(NimbusError) {
        for reference in references {
            if let violation = RecordNameRule.violation(in: reference.recordName, what: "reference recordName") {
                throw .badRequest(violation)
            }
            if let zoneID = reference.zoneID, zoneID.zoneName != context.zoneID.zoneName {
                throw .badRequest("references cannot point to another zone ('\(zoneID.zoneName)')")
            }
            // A target the caller cannot see is as missing as one that is not there.
            if reference.action == .validate, !(state[NameKey(reference.recordName)].flatMap { $0 }.map(isVisible) ?? false) {
                throw NimbusError(.referenceViolation, "VALIDATE reference to missing record '\(reference.recordName)'")
            }
        }
    }

    /// CloudKit's optimistic concurrency: `update` and `replace` need the current change tag,
    /// `delete` checks one if given; the forced kinds ignore tags. A stale tag is a `CONFLICT`
    /// carrying the server's record (`serverRecord`, as the reader may see it).
    static func checkChangeTag(of operation: RecordOperation, against current: Record?, serverRecord: Record? = nil) throws(NimbusError) {
        let tag = operation.recordChangeTag.flatMap { $0.isEmpty ? nil : $0 }
        switch operation.kind {
        case .update, .replace:
            guard let tag else { throw .badRequest("BadRequestException: missing required field 'recordChangeTag'") }
            guard let current else { throw NimbusError.recordNotFound }
            if tag != current.recordChangeTag { throw conflict(serverRecord ?? current) }
        case .delete:
            if let tag, let current, tag != current.recordChangeTag { throw conflict(serverRecord ?? current) }
        case .create, .forceUpdate, .forceReplace, .forceDelete:
            break
        }
    }

    private static func conflict(_ server: Record) -> NimbusError {
        NimbusError(.serverRecordChanged, "record was changed by another request", serverRecord: server)
    }

    // MARK: - Deletes

    private mutating func delete(_ operation: RecordOperation, name: String) throws(NimbusError) -> [Tombstone] {
        guard let current = state[NameKey(name)] ?? nil, isVisible(current) else { throw NimbusError.recordNotFound }
        try checkWritable(current, action: "delete")
        if let shareName = existingShareRoot(name) { try checkMayEnd(share: shareName) }
        try Self.checkChangeTag(of: operation, against: current)
        if context.onlyCreatorMayChange, current.created.userRecordName != context.user {
            throw .permissionFailure("only the record's creator may delete it")
        }
        // DELETE_SELF sources go with their target, transitively.
        var doomed: [String] = [name]
        var doomedSet: Set<NameKey> = [NameKey(name)]
        var index = 0
        while index < doomed.count {
            let target = doomed[index]
            for edge in edges
            where edge.targetName.isSameName(as: target) && edge.action == .deleteSelf && !doomedSet.contains(NameKey(edge.sourceName)) {
                if (state[NameKey(edge.sourceName)] ?? nil) != nil {
                    doomed.append(edge.sourceName)
                    doomedSet.insert(NameKey(edge.sourceName))
                }
            }
            index += 1
        }
        if let blocker = edges.first(where: {
            $0.action == .validate && doomedSet.contains(NameKey($0.targetName)) && !doomedSet.contains(NameKey($0.sourceName))
                && (state[NameKey($0.sourceName)] ?? nil) != nil
        }) {
            // Through the shared database the referring record may be one the caller cannot see.
            let source = context.sharing.scope == .shared ? "another record" : "'\(blocker.sourceName)'"
            throw NimbusError(.referenceViolation, "record '\(blocker.targetName)' is the target of a VALIDATE reference from \(source)")
        }
        let endedShares = doomed.compactMap { doomedName in existingShareRoot(doomedName).map { (root: doomedName, share: $0) } }
        for ended in endedShares { try checkMayEnd(share: ended.share) }
        var tombstones: [Tombstone] = []
        for doomedName in doomed {
            guard let record = state[NameKey(doomedName)] ?? nil else { continue }
            tombstones.append(Tombstone(recordName: doomedName, recordType: record.recordType))
            state[NameKey(doomedName)] = .some(nil)
            edges.removeAll { $0.sourceName.isSameName(as: doomedName) }
        }
        // A share goes with its root (CloudKit deletes the share of a deleted root): its
        // participants lose access, and the root's descendants leave the hierarchy.
        for (root, shareName) in endedShares where !doomedSet.contains(NameKey(shareName)) {
            tombstones.append(Tombstone(recordName: shareName, recordType: Share.recordType))
            state[NameKey(shareName)] = .some(nil)
            shares[NameKey(shareName)] = .some(nil)
            cascadedShareWrites += [.deleteShare(shareName), .moveDescendants(of: root, from: shareName, to: nil)]
        }
        return tombstones
    }

    /// The share a record about to be deleted is the root of, as it was before this batch.
    private func existingShareRoot(_ name: String) -> String? {
        for (shareName, share) in shares where share?.rootRecordName?.isSameName(as: name) == true { return shareName.string }
        return nil
    }
}
