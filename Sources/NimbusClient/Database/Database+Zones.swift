//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import NimbusModel

extension Database {
    // MARK: - Zones

    /// Returns every zone of the database (`zones/list`), the default zone included.
    ///
    /// In the shared database: the zones of the shares the user accepted, each with its owner.
    public func allZones() async throws -> [ZoneID] {
        let response = try await get("zones/list")
        return try zones(in: response)
    }

    /// Creates zones (`zones/modify`); creating one that exists is not an error, as in CloudKit.
    /// - Throws: `.permissionFailure` in a database without custom zones.
    @discardableResult
    public func save(zones: [ZoneID]) async throws -> [ZoneID] {
        try await modifyZones(zones.map { ("create", $0) }, toleratingExisting: true)
    }

    /// Deletes zones and every record in them (`zones/modify`).
    /// - Throws: `.zoneNotFound` (as a per-zone error) for a zone that does not exist.
    public func delete(zones: [ZoneID]) async throws {
        _ = try await modifyZones(zones.map { ("delete", $0) }, toleratingExisting: false)
    }

    private func modifyZones(_ operations: [(type: String, zoneID: ZoneID)], toleratingExisting: Bool) async throws -> [ZoneID] {
        let response = try await post("zones/modify", idempotent: false) { writer in
            writer.beginObject()
            writer.key("operations")
            writer.beginArray()
            for operation in operations {
                writer.beginObject()
                writer.field("operationType", operation.type)
                writer.key("zone")
                writer.beginObject()
                writer.key("zoneID")
                RecordWireCoding.write(operation.zoneID, to: &writer)
                writer.endObject()
                writer.endObject()
            }
            writer.endArray()
            writer.endObject()
        }
        return try zones(in: response, requested: operations.map(\.zoneID), toleratingExisting: toleratingExisting)
    }

    /// The zone IDs of a `zones` array; the first per-zone error is thrown, except `EXISTS` for a
    /// zone being created (CloudKit saves an existing zone without complaint).
    private func zones(in response: JSONObject, requested: [ZoneID] = [], toleratingExisting: Bool = false) throws -> [ZoneID] {
        guard case .array(let items)? = response["zones"] else { return [] }
        return try items.enumerated().map { index, item in
            if RecordJSON.isError(item) {
                let error = RecordJSON.error(item)
                guard toleratingExisting, error.code == .alreadyExists, index < requested.count else { throw error }
                return requested[index]
            }
            guard case .object(let members) = item, let zoneID = members["zoneID"] else {
                throw NimbusError(.internalError, "zones[\(index)] has no zoneID")
            }
            return try RecordWireCoding.zoneID(zoneID, at: "zones[\(index)].zoneID")
        }
    }
}
