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
        query = try Self.query(try members.required("query", at: ""), at: "query")
        zoneID = try members.zoneID()
        zoneWide = try members.optionalBool("zoneWide")
        resultsLimit = try members.optional("resultsLimit").map { (limit) throws(NimbusError) in Int(try limit.integer(at: "resultsLimit")) }
        continuationMarker = try members.optional("continuationMarker")?.string(at: "continuationMarker")
        desiredKeys = try members.stringList("desiredKeys", at: "")
        numbersAsStrings = try members.optionalBool("numbersAsStrings")
    }

    /// Reads `{recordType, filterBy[], sortBy[]}`.
    private static func query(_ json: JSONValue, at path: String) throws(NimbusError) -> Query {
        let members = try json.object(at: path)
        let recordType = try members.required("recordType", at: path).string(at: jsonPath(path, "recordType"))
        var filters: [Filter] = []
        let filtersPath = jsonPath(path, "filterBy")
        for (index, element) in (try members.optional("filterBy")?.array(at: filtersPath) ?? []).enumerated() {
            let filterPath = jsonPath(filtersPath, index)
            let filter = try element.object(at: filterPath)
            let name = try filter.required("comparator", at: filterPath).string(at: jsonPath(filterPath, "comparator"))
            guard let comparator = Filter.Comparator(rawValue: name.uppercased()) else {
                throw .badRequest("unknown comparator '\(name)' at \(jsonPath(filterPath, "comparator"))")
            }
            let field = try filter.required("fieldName", at: filterPath).string(at: jsonPath(filterPath, "fieldName"))
            let value = try FieldValue.read(dictionary: try filter.required("fieldValue", at: filterPath), at: jsonPath(filterPath, "fieldValue"))
            filters.append(Filter(field, comparator, value.value))
        }
        var sorts: [SortDescriptor] = []
        let sortsPath = jsonPath(path, "sortBy")
        for (index, element) in (try members.optional("sortBy")?.array(at: sortsPath) ?? []).enumerated() {
            let sortPath = jsonPath(sortsPath, index)
            let sort = try element.object(at: sortPath)
            sorts.append(
                SortDescriptor(
                    try sort.required("fieldName", at: sortPath).string(at: jsonPath(sortPath, "fieldName")),
                    ascending: try sort.optional("ascending")?.bool(at: jsonPath(sortPath, "ascending")) ?? true
                )
            )
        }
        return Query(recordType: recordType, filters: filters, sortDescriptors: sorts)
    }
}
