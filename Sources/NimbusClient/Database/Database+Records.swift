//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import NimbusModel
import NimbusWire

/// How a save treats the server's copy of a record, as CloudKit's `CKModifyRecordsOperation.RecordSavePolicy`.
public enum RecordSavePolicy: Sendable, Hashable {
    /// Saves only if the server's record still has the change tag the record carries; a record
    /// without a tag must not exist yet. Otherwise the save fails with `.serverRecordChanged`,
    /// carrying the server's record.
    case ifServerRecordUnchanged
    /// Overwrites the fields the record carries and keeps the others, whatever the server has.
    /// (The SDK tracks no changes: every field the record carries counts as changed.)
    case changedKeys
    /// Replaces the server's record with this one, whatever the server has.
    case allKeys
}

/// What ``Database/modifyRecords(saving:deleting:savePolicy:atomically:)`` did with each record.
public struct ModifyRecordsResult: Sendable {
    /// The saved record as the server stored it (with its new change tag), or why it was not saved.
    public var saveResults: [RecordID: Result<Record, NimbusError>] = [:]
    /// Each deletion's outcome.
    public var deleteResults: [RecordID: Result<Void, NimbusError>] = [:]

    /// The batch's failures as one error, as CloudKit's operations report them: a
    /// `.partialFailure` whose ``NimbusModel/NimbusError/partialErrorsByItemID`` holds the error of
    /// each record that was not saved or deleted; `nil` when every save and deletion succeeded.
    ///
    /// ```swift
    /// let result = try await database.modifyRecords(saving: notes)
    /// if let failure = result.partialFailure {
    ///     for (item, error) in failure.partialErrorsByItemID { print(item, error) }
    /// }
    /// ```
    public var partialFailure: NimbusError? {
        var errors: [NimbusError.ItemID: NimbusError] = [:]
        for case (let recordID, .failure(let error)) in saveResults { errors[.record(recordID)] = error }
        for case (let recordID, .failure(let error)) in deleteResults { errors[.record(recordID)] = error }
        return NimbusError.partialFailure(errors, of: saveResults.count + deleteResults.count)
    }
}

extension Database {
    /// The most operations one `records/modify` or `records/lookup` request may carry.
    public static let maximumRecordsPerRequest = 200

    // MARK: - Fetching

    /// Fetches records by name (`records/lookup`), 200 names per request.
    /// - Parameters:
    ///   - names: the record names.
    ///   - zoneID: the zone holding them.
    ///   - desiredKeys: the fields to return; all of them when `nil`.
    /// - Returns: each name's record, or `.unknownItem` when there is none (or the caller may not see it).
    /// - Throws: `.zoneNotFound` for a zone that does not exist.
    public func records(
        named names: [String],
        in zoneID: ZoneID,
        desiredKeys: [String]? = nil
    ) async throws -> [NameKey: Result<Record, NimbusError>] {
        var results: [NameKey: Result<Record, NimbusError>] = [:]
        for chunk in names.chunked(by: Self.maximumRecordsPerRequest) {
            let request = RecordsLookupRequest(records: chunk.map { .init(recordName: $0) }, zoneID: zoneID, desiredKeys: desiredKeys)
            var response = try await postForRecords("records/lookup", idempotent: true, in: zoneID, expectedCount: chunk.count) {
                request.write(to: &$0)
            }
            for index in 0..<min(try response.requireCount(), chunk.count) {
                if let json = response.json(at: index) {
                    results[NameKey(chunk[index])] =
                        WireError.isError(json)
                        ? .failure(WireError.nimbusError(from: json, in: zoneID))
                        : .success(try RecordWireCoding.record(json, in: zoneID, at: "records[\(index)]"))
                } else {
                    results[NameKey(chunk[index])] = .success(response.takeRecord(at: index))
                }
            }
        }
        return results
    }

    /// Fetches one record.
    /// - Throws: `.unknownItem` when there is none, `.zoneNotFound` for a missing zone.
    public func record(named name: String, in zoneID: ZoneID) async throws -> Record {
        guard let result = try await records(named: [name], in: zoneID)[NameKey(name)] else {
            throw NimbusError(.internalError, "the server did not answer for record \(name)")
        }
        return try result.get()
    }

    // MARK: - Modifying

    /// Saves and deletes records (`records/modify`), one request per zone and per 200 records.
    /// A request the server finds too large (`.limitExceeded`: records up to 1 MB each can make
    /// 200 of them larger than a request may be) is split in halves and sent again, unless it is
    /// atomic.
    ///
    /// A saved record comes back with the server's system fields (its new change tag, stamps,
    /// share). With ``RecordSavePolicy/ifServerRecordUnchanged`` and ``RecordSavePolicy/allKeys``
    /// the server stores the record's fields exactly as sent, so the request asks only for its
    /// system fields (`desiredKeys`) and the result carries the fields that were sent, as
    /// CloudKit's framework returns them; with ``RecordSavePolicy/changedKeys`` the server's
    /// merged record comes back whole.
    ///
    /// - Parameters:
    ///   - saving: the records to save, in any zones of the database.
    ///   - deleting: the records to delete.
    ///   - savePolicy: how saves treat the server's copy.
    ///   - atomically: all or nothing within each zone (CloudKit's atomic zone batches; custom
    ///     zones only: the default zone's batches are never atomic). An atomic batch of more
    ///     than 200 records in one custom zone cannot be split and fails with `.limitExceeded`
    ///     before anything is sent.
    /// - Returns: each record's outcome. Failures of single records (`.serverRecordChanged`,
    ///   `.unknownItem`, `.atomicFailure`, ...) are results, not thrown errors;
    ///   ``ModifyRecordsResult/partialFailure`` gathers them into one `.partialFailure`.
    /// - Throws: errors about the whole request: `.zoneNotFound`, `.permissionFailure`,
    ///   `.authenticationRequired`, `.serviceUnavailable` once retries are exhausted.
    public func modifyRecords(
        saving: [Record] = [],
        deleting: [RecordID] = [],
        savePolicy: RecordSavePolicy = .ifServerRecordUnchanged,
        atomically: Bool = true
    ) async throws -> ModifyRecordsResult {
        // The zones in order of first use, and each one's operations.
        var zones: [ZoneID] = []
        var operations: [[RecordWrite]] = []
        var positions: [ZoneID: Int] = [:]
        var previous: Int?
        func add(_ write: RecordWrite, in zoneID: ZoneID) {
            // In the private database every zone is the caller's: a zone ID the server filled in
            // with the owner and one the app wrote without it are the same zone, and one request.
            let key = scope == .private ? ZoneID(zoneName: zoneID.zoneName, ownerRecordName: "") : zoneID
            let position: Int
            // Records of one zone mostly come together: the previous record's zone is checked
            // before hashing.
            if let previous, zones[previous] == key {
                position = previous
            } else if let known = positions[key] {
                position = known
            } else {
                position = zones.count
                zones.append(key)
                operations.append([])
                positions[key] = position
            }
            operations[position].append(write)
            previous = position
        }
        for index in saving.indices { add(.save(index), in: saving[index].recordID.zoneID) }
        for index in deleting.indices { add(.delete(index), in: deleting[index].zoneID) }
        // The default zone is never atomic (the server ignores `atomic` there), so its batches
        // may be split like any non-atomic one.
        if atomically,
            let crowded = operations.indices.first(where: { operations[$0].count > Self.maximumRecordsPerRequest && !zones[$0].isDefaultZone })
        {
            throw NimbusError(
                .limitExceeded,
                "an atomic batch may hold \(Self.maximumRecordsPerRequest) records per zone; zone \(zones[crowded].zoneName) has \(operations[crowded].count)"
            )
        }
        var result = ModifyRecordsResult()
        var sentAny = false
        for (zoneID, writes) in zip(zones, operations) {
            for chunk in writes.chunked(by: Self.maximumRecordsPerRequest) {
                try await send(
                    splitting: chunk[...],
                    of: saving,
                    deleting,
                    in: zoneID,
                    savePolicy: savePolicy,
                    atomically: atomically && !zoneID.isDefaultZone,
                    sentAny: &sentAny,
                    into: &result
                )
            }
        }
        return result
    }

    /// Saves one record and returns it as the server stored it.
    /// - Throws: `.serverRecordChanged` (with ``NimbusModel/NimbusError/serverRecord``) when the
    ///   record's change tag is stale, and the errors of ``modifyRecords(saving:deleting:savePolicy:atomically:)``.
    public func save(_ record: Record, savePolicy: RecordSavePolicy = .ifServerRecordUnchanged) async throws -> Record {
        let result = try await modifyRecords(saving: [record], savePolicy: savePolicy, atomically: false)
        guard let outcome = result.saveResults[record.recordID] else {
            throw NimbusError(.internalError, "the server did not answer for record \(record.recordID.recordName)")
        }
        return try outcome.get()
    }

    /// Deletes one record.
    /// - Throws: `.unknownItem` when there is none.
    public func deleteRecord(_ recordID: RecordID) async throws {
        let result = try await modifyRecords(deleting: [recordID], atomically: false)
        try result.deleteResults[recordID]?.get()
    }

    // MARK: - Private

    /// One operation of a ``modifyRecords(saving:deleting:savePolicy:atomically:)`` call: the
    /// position of its record in `saving` or of its ID in `deleting` (records are not copied
    /// around to be grouped by zone).
    private enum RecordWrite {
        case save(Int)
        case delete(Int)
    }

    /// Sends one request's operations. When the server finds the request over one of its limits
    /// (the size of a request body: records up to 1 MB each can make 200 of them too large) and
    /// the operations may be split (not atomic, more than one), sends each half instead, and so on
    /// down, as CloudKit apps do by hand on `limitExceeded`.
    ///
    /// Once a request of the call has committed, a later request's failure is reported as its
    /// records' results rather than thrown, so the committed results are not thrown away.
    private func send(
        splitting writes: ArraySlice<RecordWrite>,
        of saving: [Record],
        _ deleting: [RecordID],
        in zoneID: ZoneID,
        savePolicy: RecordSavePolicy,
        atomically: Bool,
        sentAny: inout Bool,
        into result: inout ModifyRecordsResult
    ) async throws {
        do {
            try await send(
                Array(writes),
                of: saving,
                deleting,
                in: zoneID,
                savePolicy: savePolicy,
                atomically: atomically,
                committed: &sentAny,
                into: &result
            )
        } catch let error as NimbusError where error.code == .limitExceeded && !atomically && writes.count > 1 {
            let middle = writes.startIndex + writes.count / 2
            for half in [writes[..<middle], writes[middle...]] {
                try await send(
                    splitting: half,
                    of: saving,
                    deleting,
                    in: zoneID,
                    savePolicy: savePolicy,
                    atomically: atomically,
                    sentAny: &sentAny,
                    into: &result
                )
            }
        } catch let error as NimbusError where sentAny {
            // Records this request already reported keep their results.
            for write in writes {
                switch write {
                case .save(let index) where result.saveResults[saving[index].recordID] == nil:
                    result.saveResults[saving[index].recordID] = .failure(error)
                case .delete(let index) where result.deleteResults[deleting[index]] == nil:
                    result.deleteResults[deleting[index]] = .failure(error)
                default: break
                }
            }
        }
    }

    private func send(
        _ writes: [RecordWrite],
        of saving: [Record],
        _ deleting: [RecordID],
        in zoneID: ZoneID,
        savePolicy: RecordSavePolicy,
        atomically: Bool,
        committed: inout Bool,
        into result: inout ModifyRecordsResult
    ) async throws {
        let echo = Self.echo(of: writes, in: saving, savePolicy)
        let operations = writes.map { write in
            switch write {
            case .save(let position): RecordOperation(saving: saving[position], as: Self.operationKind(for: saving[position], savePolicy))
            case .delete(let position): RecordOperation(kind: .forceDelete, recordName: deleting[position].recordName)
            }
        }
        var returned: [String]?
        if case .systemFields(let keys) = echo { returned = keys }
        let request = RecordsModifyRequest(operations: operations, zoneID: zoneID, atomic: atomically, desiredKeys: returned)
        // About 300 bytes a record with a few short fields.
        var response = try await postForRecords(
            "records/modify",
            idempotent: false,
            in: zoneID,
            expectedBodySize: 128 + writes.count * 320,
            expectedCount: writes.count,
            answered: { committed = true }
        ) {
            request.write(to: &$0)
        }
        let count = try response.requireCount()
        result.saveResults.reserveCapacity(result.saveResults.count + writes.count)
        for (index, write) in writes.enumerated() {
            let recordID: RecordID
            let isSave: Bool
            switch write {
            case .save(let position): (recordID, isSave) = (saving[position].recordID, true)
            case .delete(let position): (recordID, isSave) = (deleting[position], false)
            }
            func fail(_ failure: NimbusError) {
                if isSave {
                    result.saveResults[recordID] = .failure(failure)
                } else {
                    result.deleteResults[recordID] = .failure(failure)
                }
            }
            guard index < count else {
                fail(NimbusError(.internalError, "no result for this record"))
                continue
            }
            let json = response.json(at: index)
            if let json, WireError.isError(json) {
                fail(WireError.nimbusError(from: json, in: zoneID))
            } else if !isSave {
                // A deletion's result is its tombstone.
                result.deleteResults[recordID] = .success(())
            } else if let json {
                var saved = try RecordWireCoding.record(json, in: zoneID, at: "records[\(index)]")
                Self.complete(&saved, from: write, of: saving, echo)
                result.saveResults[recordID] = .success(saved)
            } else {
                // Completed where it lies, then moved out: a record changed in a variable of
                // its own is copied whole when it is moved on, a retain and a release for each
                // of its strings and collections.
                response.updateRecord(at: index) { Self.complete(&$0, from: write, of: saving, echo) }
                result.saveResults[recordID] = .success(response.takeRecord(at: index))
            }
        }
    }

    /// What a `records/modify` asks the server to send back of the records it saves.
    private enum Echo {
        /// Every field: the server's record may hold fields the request did not send.
        case allFields
        /// The system fields, and these fields (assets, whose stored form is the server's).
        case systemFields(returning: [String])
    }

    /// A save that replaces the record whole (create, replace, force-replace) stores exactly the
    /// fields it sent, so only the system fields are asked back (`desiredKeys`, asset fields
    /// included) and ``complete(_:from:of:_:)`` puts the sent fields back: a response of half
    /// the bytes for the server to write and the SDK to read. A save that merges into the
    /// server's record (``RecordSavePolicy/changedKeys``), and a share's save, get it all back.
    private static func echo(of writes: [RecordWrite], in saving: [Record], _ policy: RecordSavePolicy) -> Echo {
        guard policy != .changedKeys else { return .allFields }
        var assets: Set<NameKey> = []
        // Read in place: copying a record out of the array retains every part of it.
        for case .save(let position) in writes {
            if Share.isShareType(saving[position].recordType) { return .allFields }
            // Most records have no asset: looked for without copying each name and value out.
            guard saving[position].fields.values.contains(where: \.isAsset) else { continue }
            for (name, value) in saving[position].fields where value.isAsset { assets.insert(name) }
        }
        return .systemFields(returning: assets.sorted().map(\.string))
    }

    /// Makes a response's record the saved record as the server stores it: puts back the fields
    /// the request sent, when it asked for system fields only.
    private static func complete(_ saved: inout Record, from write: RecordWrite, of saving: [Record], _ echo: Echo) {
        guard case .systemFields = echo, case .save(let position) = write else { return }
        // Fields the server sent back (assets) are its form of them.
        saved.fields = saved.fields.isEmpty ? saving[position].fields : saving[position].fields.merging(saved.fields) { _, returned in returned }
        saved.encryptedFields = saving[position].encryptedFields
    }

    private static func operationKind(for record: Record, _ policy: RecordSavePolicy) -> RecordOperation.Kind {
        switch policy {
        // The record is the whole record: with a tag it replaces the server's version it was
        // read from (a field removed locally is removed), as CloudKit's save of a fetched record.
        case .ifServerRecordUnchanged: record.recordChangeTag.isEmpty ? .create : .replace
        case .changedKeys: .forceUpdate
        case .allKeys: .forceReplace
        }
    }

    /// The `records` array of a response.
    func recordItems(_ response: JSONObject) throws -> [JSONValue] {
        guard case .array(let items)? = response["records"] else {
            throw NimbusError(.internalError, "the server's response has no records array")
        }
        return items
    }
}

extension Array {
    /// The array cut into consecutive pieces of at most `size` elements.
    func chunked(by size: Int) -> [[Element]] {
        stride(from: 0, to: count, by: size).map { Array(self[$0..<Swift.min($0 + size, count)]) }
    }
}
