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
            let response = try await post("zones/modify", idempotent: false) { writer in
                writer.beginObject()
                writer.key("operations")
                writer.beginArray()
                for operation in chunk {
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
            var items: [JSONValue] = []
            if case .array(let zones)? = response["zones"] { items = zones }
            for index in items.count..<max(items.count, chunk.count) {
                failures[.zone(chunk[index].zoneID)] = NimbusError(.internalError, "the server did not answer for this zone")
            }
            for (index, item) in items.enumerated() {
                let requested = index < chunk.count ? chunk[index].zoneID : nil
                if RecordJSON.isError(item) {
                    let error = RecordJSON.error(item)
                    // CloudKit saves an existing zone without complaint.
                    if toleratingExisting, error.code == .alreadyExists, let requested {
                        done.append(requested)
                    } else if let requested {
                        failures[.zone(requested)] = error
                    } else {
                        throw error
                    }
                    continue
                }
                guard case .object(let members) = item, let zoneID = members["zoneID"] else {
                    throw NimbusError(.internalError, "zones[\(index)] has no zoneID")
                }
                done.append(try RecordWireCoding.zoneID(zoneID, at: "zones[\(index)].zoneID"))
            }
        }
        // One zone's failure is its own error; several zones' are one partial failure.
        if operations.count == 1, let only = failures.values.first { throw only }
        if let failure = NimbusError.partialFailure(failures, of: operations.count) { throw failure }
        return done
    }

    /// The zone IDs of a `zones` array.
    private func zones(in response: JSONObject) throws -> [ZoneID] {
        guard case .array(let items)? = response["zones"] else { return [] }
        return try items.enumerated().map { index, item in
            if RecordJSON.isError(item) { throw RecordJSON.error(item) }
            guard case .object(let members) = item, let zoneID = members["zoneID"] else {
                throw NimbusError(.internalError, "zones[\(index)] has no zoneID")
            }
            return try RecordWireCoding.zoneID(zoneID, at: "zones[\(index)].zoneID")
        }
    }
}
