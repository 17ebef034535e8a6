//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import NimbusModel

/// What to fetch from one zone's change feed: the body of `records/changes`, and each element
/// of `changes/zone`'s `zones` (where absent keys fall back to the request's top level).
public struct ZoneFeedRequest: Sendable {
    /// The zone; absent means the default zone.
    public var zoneID: ZoneID?
    /// Where the client's copy stands; absent syncs from scratch.
    public var syncToken: String?
    /// The most changes to return.
    public var resultsLimit: Int?
    /// The fields to return; `nil` returns all.
    public var desiredKeys: [String]?
    /// Only records of these types.
    public var desiredRecordTypes: [String]?

    init(members: JSONObject, at path: @autoclosure () -> String, defaults: ZoneFeedRequest? = nil) throws(NimbusError) {
        zoneID = try members.optional("zoneID").map { (zone) throws(NimbusError) in try ZoneID.read(zone, at: jsonPath(path(), "zoneID")) }
        syncToken = try members.optional("syncToken")?.string(at: jsonPath(path(), "syncToken")) ?? defaults?.syncToken
        resultsLimit = try members.resultsLimit(at: path()) ?? defaults?.resultsLimit
        desiredKeys = try members.stringList("desiredKeys", at: path()) ?? defaults?.desiredKeys
        desiredRecordTypes = try members.stringList("desiredRecordTypes", at: path()) ?? defaults?.desiredRecordTypes
    }
}

/// The body of `records/changes`.
public struct RecordsChangesRequest: WireRequest {
    /// The zone and where to resume.
    public var feed: ZoneFeedRequest
    /// CKWS `numbersAsStrings`.
    public var numbersAsStrings: Bool?

    package init(json: JSONValue) throws(NimbusError) {
        let members = try json.object(at: "the body")
        feed = try ZoneFeedRequest(members: members, at: "")
        numbersAsStrings = try members.numbersAsStrings()
    }
}

/// The body of `changes/zone`: several zones' feeds in one request.
public struct ZoneChangesRequest: WireRequest {
    /// One request per zone, with the top-level defaults applied.
    public var zones: [ZoneFeedRequest]
    /// Return each page's changes newest first.
    public var reverse: Bool
    /// CKWS `numbersAsStrings` (Apple's page also spells it `numberAsStrings`).
    public var numbersAsStrings: Bool?

    package init(json: JSONValue) throws(NimbusError) {
        let members = try json.object(at: "the body")
        let defaults = try ZoneFeedRequest(members: members.filter { $0.key != "zoneID" && $0.key != "syncToken" }, at: "")
        zones = try members.required("zones", at: "").array(at: "zones").enumerated().map { (index, element) throws(NimbusError) in
            let path = jsonPath("zones", index)
            let zone = try element.object(at: path)
            _ = try zone.required("zoneID", at: path)
            return try ZoneFeedRequest(members: zone, at: path, defaults: defaults)
        }
        reverse = try members.optionalBool("reverse") ?? false
        numbersAsStrings = try members.numbersAsStrings()
    }
}

/// The body of `changes/database` and `zones/changes`. An empty body is an empty request.
public struct DatabaseChangesRequest: WireRequest {
    /// Where the client's list of zones stands; absent lists every zone.
    public var syncToken: String?
    /// The most zones to return.
    public var resultsLimit: Int?

    package init(json: JSONValue) throws(NimbusError) {
        let members = try json.object(at: "the body")
        syncToken = try members.optional("syncToken")?.string(at: "syncToken")
        resultsLimit = try members.resultsLimit(at: "")
    }

    /// Parses a body that may be empty: the first call of a sync has nothing to send.
    package static func parseAllowingEmpty(_ body: [UInt8]) throws(NimbusError) -> Self {
        body.allSatisfy { $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 } ? try Self(json: .object([:])) : try parse(body)
    }
}

extension JSONObject {
    fileprivate func resultsLimit(at path: @autoclosure () -> String) throws(NimbusError) -> Int? {
        try optional("resultsLimit").map { (limit) throws(NimbusError) in Int(try limit.integer(at: jsonPath(path(), "resultsLimit"))) }
    }

    fileprivate func numbersAsStrings() throws(NimbusError) -> Bool? {
        if let value = try optionalBool("numbersAsStrings") { return value }
        return try optionalBool("numberAsStrings")
    }
}
