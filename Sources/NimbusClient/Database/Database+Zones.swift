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
        try await modifyZones(zones.map { ("create", $0) })
    }

    /// Deletes zones and every record in them (`zones/modify`).
    /// - Throws: `.zoneNotFound` (as a per-zone error) for a zone that does not exist.
    public func delete(zones: [ZoneID]) async throws {
        _ = try await modifyZones(zones.map { ("delete", $0) })
    }

    private func modifyZones(_ operations: [(type: String, zoneID: ZoneID)]) async throws -> [ZoneID] {
        let response = try await post("zones/modify") { writer in
            writer.beginObject()
            writer.key("operations")
            writer.beginArray()
            for operation in operations {
                writer.beginObject()
                writer.field("operationType", operation.type)
                writer.key("zone")
                writer.beginObject()
                writer.key("zoneID")
                RecordJSON.write(operation.zoneID, to: &writer)
                writer.endObject()
                writer.endObject()
            }
            writer.endArray()
            writer.endObject()
        }
        return try zones(in: response)
    }

    /// The zone IDs of a `zones` array; the first per-zone error is thrown.
    private func zones(in response: [String: JSONValue]) throws -> [ZoneID] {
        guard case .array(let items)? = response["zones"] else { return [] }
        return try items.enumerated().map { index, item in
            if RecordJSON.isError(item) { throw RecordJSON.error(item) }
            guard case .object(let members) = item, let zoneID = members["zoneID"] else {
                throw NimbusError(.internalError, "zones[\(index)] has no zoneID")
            }
            return try RecordJSON.zoneID(zoneID, at: "zones[\(index)].zoneID")
        }
    }
}
