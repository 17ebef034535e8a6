//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

/// Reading the dictionaries inside field values: references, assets, locations, zone IDs.
extension Reference {
    /// Reads `{recordName, zoneID?, action?}`; a missing action is `NONE`, case is ignored.
    package static func read(_ json: JSONValue, at path: @autoclosure () -> String) throws(NimbusError) -> Reference {
        let members = try json.object(at: path())
        let name = try members.required("recordName", at: path()).string(at: jsonPath(path(), "recordName"))
        let zoneID = try members.optional("zoneID").map { (zone) throws(NimbusError) in try ZoneID.read(zone, at: jsonPath(path(), "zoneID")) }
        let actionName = try members.optional("action")?.string(at: jsonPath(path(), "action")) ?? "NONE"
        guard let action = Action(rawValue: actionName.uppercased()) else {
            throw .badRequest("unknown reference action '\(actionName)' at \(jsonPath(path(), "action"))")
        }
        return Reference(recordName: name, zoneID: zoneID, action: action)
    }
}

extension ZoneID {
    /// Reads `{zoneName, ownerRecordName | ownerName}`. A missing zone name is the default zone;
    /// a missing owner is the empty string, which the server reads as "the caller".
    package static func read(_ json: JSONValue, at path: @autoclosure () -> String) throws(NimbusError) -> ZoneID {
        let members = try json.object(at: path())
        let name = try members.optional("zoneName")?.string(at: jsonPath(path(), "zoneName")) ?? ZoneID.defaultZoneName
        let owner = try (members.optional("ownerRecordName") ?? members.optional("ownerName"))?.string(at: jsonPath(path(), "ownerRecordName")) ?? ""
        return ZoneID(zoneName: name, ownerRecordName: owner)
    }
}

extension Asset {
    /// Reads an asset dictionary; every key is optional.
    package static func read(_ json: JSONValue, at path: @autoclosure () -> String) throws(NimbusError) -> Asset {
        let members = try json.object(at: path())
        func text(_ key: String) throws(NimbusError) -> String? { try members.optional(key)?.string(at: jsonPath(path(), key)) }
        var asset = Asset(
            fileChecksum: try text("fileChecksum"),
            size: try members.optional("size")?.integer(at: jsonPath(path(), "size")),
            referenceChecksum: try text("referenceChecksum"),
            wrappingKey: try text("wrappingKey"),
            receipt: try text("receipt"),
            downloadURL: try text("downloadURL")
        )
        // Read from storage; what a client sends here, the engine replaces (see `AssetReceipts`).
        asset.assetID = try text("assetID")
        return asset
    }
}

extension Location {
    /// Reads `{latitude, longitude, ...}`; latitude and longitude are required.
    package static func read(_ json: JSONValue, at path: @autoclosure () -> String) throws(NimbusError) -> Location {
        let members = try json.object(at: path())
        func number(_ key: String) throws(NimbusError) -> Double? {
            guard let value = members.optional(key) else { return nil }
            guard let double = value.doubleValue else { throw JSONValue.wrongType(jsonPath(path(), key), expected: "a number", found: value) }
            return double
        }
        guard let latitude = try number("latitude"), let longitude = try number("longitude") else {
            throw .badRequest("a location at \(path()) needs latitude and longitude")
        }
        return Location(
            latitude: latitude,
            longitude: longitude,
            horizontalAccuracy: try number("horizontalAccuracy"),
            verticalAccuracy: try number("verticalAccuracy"),
            altitude: try number("altitude"),
            speed: try number("speed"),
            course: try number("course"),
            timestamp: try members.optional("timestamp")?.integer(at: jsonPath(path(), "timestamp"))
        )
    }
}
