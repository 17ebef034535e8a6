//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import NimbusModel

/// The body of `records/query`.
public struct RecordsQueryRequest: WireRequest {
    /// The record type to search, with its filters (`filterBy`) and sort descriptors (`sortBy`).
    public var query: Query
    /// The zone to search; `nil` means the default zone.
    public var zoneID: ZoneID?
    /// Whether to search every zone of the database; accepted, but queries run in one zone.
    public var zoneWide: Bool?
    /// The most records to return, 1 to 200; `nil` means 200.
    public var resultsLimit: Int?
    /// The opaque cursor from the previous page's response, to get the next page.
    public var continuationMarker: String?
    /// The fields to return; `nil` returns all, `[]` only the system fields.
    public var desiredKeys: [String]?
    /// CKWS `numbersAsStrings`: write 64-bit integers and timestamps as JSON strings.
    public var numbersAsStrings: Bool?

    package init(json: JSONValue) throws(NimbusError) {
        let members = try json.object(at: "the body")
        query = try Query.read(try members.required("query", at: ""), at: "query")
        zoneID = try members.zoneID()
        zoneWide = try members.optionalBool("zoneWide")
        resultsLimit = try members.optional("resultsLimit").map { (limit) throws(NimbusError) in Int(try limit.integer(at: "resultsLimit")) }
        continuationMarker = try members.optional("continuationMarker")?.string(at: "continuationMarker")
        desiredKeys = try members.stringList("desiredKeys", at: "")
        numbersAsStrings = try members.optionalBool("numbersAsStrings")
    }
}
