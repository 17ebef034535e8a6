//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import NimbusModel
import NimbusWire

extension Database {
    // MARK: - Zones

    /// Returns every zone of the database (`zones/list`), the default zone included.
    ///
    /// In the shared database: the zones of the shares the user accepted, each with its owner.
    public func allZones() async throws -> [ZoneID] {
        try await allRecordZones().map(\.zoneID)
    }

    /// Returns every zone of the database with its capabilities (`zones/list`), as CloudKit's
    /// `allRecordZones()`.
    public func allRecordZones() async throws -> [RecordZone] {
        let body = try await get("zones/list")
        let response = try serverAnswer { () throws(NimbusError) in try ZonesResponse(json: .object(body)) }
        return try response.zones.map { item in
            switch item {
            case .zone(let zone): RecordZone(zoneID: zone.zoneID, capabilities: zone.atomic ? .custom : .fetchChanges)
            case .deleted(let zoneID): RecordZone(zoneID: zoneID)
            case .error(let error): throw error.nimbusError
            }
        }
    }

    /// Creates and deletes zones in one call, as CloudKit's `modifyRecordZones(saving:deleting:)`:
    /// saving a zone that exists is not an error.
    /// - Returns: the zones saved, with the IDs the server gives them (their owner filled in),
    ///   and the IDs of the zones deleted.
    /// - Throws: `.badRequest` for a zone both saved and deleted; `.permissionFailure` in a
    ///   database without custom zones; for a single zone, its error; for several of which some
    ///   failed, `.partialFailure` with each failed one's error.
    @discardableResult
    public func modifyRecordZones(saving: [RecordZone], deleting: [ZoneID]) async throws -> (saved: [RecordZone], deleted: [ZoneID]) {
        let deletedNames = Set(deleting.map(\.zoneName))
        if let both = saving.first(where: { deletedNames.contains($0.zoneID.zoneName) }) {
            throw NimbusError.badRequest("zone \(both.zoneID.zoneName) is both saved and deleted")
        }
        let operations = saving.map { ("create", $0.zoneID) } + deleting.map { ("delete", $0) }
        // Any failure throws, so every zone named was done; the server's IDs come back by name.
        let done = try await modifyZones(operations, toleratingExisting: true)
        let byName = Dictionary(done.map { ($0.zoneName, $0) }, uniquingKeysWith: { first, _ in first })
        return (
            saving.map { RecordZone(zoneID: byName[$0.zoneID.zoneName] ?? $0.zoneID, capabilities: .custom) },
            deleting
        )
    }

    /// Creates zones (`zones/modify`), 200 per request; creating one that exists is not an
    /// error, as in CloudKit.
    /// - Throws: `.permissionFailure` in a database without custom zones; for several zones of
    ///   which some failed, `.partialFailure` with each failed zone's error.
    @discardableResult
    public func save(zones: [ZoneID]) async throws -> [ZoneID] {
        try await modifyZones(zones.map { ("create", $0) }, toleratingExisting: true)
    }

    /// Deletes zones and every record in them (`zones/modify`), 200 per request.
    /// - Throws: `.zoneNotFound` for a zone that does not exist; for several zones of which some
    ///   failed, `.partialFailure` with each failed zone's error.
    public func delete(zones: [ZoneID]) async throws {
        _ = try await modifyZones(zones.map { ("delete", $0) }, toleratingExisting: false)
    }

    private func modifyZones(_ operations: [(type: String, zoneID: ZoneID)], toleratingExisting: Bool) async throws -> [ZoneID] {
        var done: [ZoneID] = []
        var failures: [NimbusError.ItemID: NimbusError] = [:]
        for chunk in operations.chunked(by: Self.maximumRecordsPerRequest) {
            let request = ZonesModifyRequest(operations: chunk.map { ZonesModifyRequest.Operation(operationType: $0.type, zoneID: $0.zoneID) })
            let response = try await post("zones/modify", idempotent: false) { writer in request.write(to: &writer) }
            let items = try serverAnswer { () throws(NimbusError) in try ZonesResponse(json: .object(response)) }.zones
            for index in items.count..<max(items.count, chunk.count) {
                failures[.zone(chunk[index].zoneID)] = NimbusError(.internalError, "the server did not answer for this zone")
            }
            for (index, item) in items.enumerated() {
                let requested = index < chunk.count ? chunk[index].zoneID : nil
                switch item {
                case .zone(let zone):
                    done.append(zone.zoneID)
                case .deleted(let zoneID):
                    done.append(zoneID)
                case .error(let wire):
                    let error = wire.nimbusError
                    // CloudKit saves an existing zone without complaint.
                    if toleratingExisting, error.code == .alreadyExists, let requested {
                        done.append(requested)
                    } else if let requested {
                        failures[.zone(requested)] = error
                    } else {
                        throw error
                    }
                }
            }
        }
        // One zone's failure is its own error; several zones' are one partial failure.
        if operations.count == 1, let only = failures.values.first { throw only }
        if let failure = NimbusError.partialFailure(failures, of: operations.count) { throw failure }
        return done
    }
}
