//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import NimbusModel

/// The body of `records/query`.
public struct RecordsQueryRequest: Decodable, Sendable {
    public var query: WireQuery
    public var zoneID: ZoneID?
    public var zoneWide: Bool?
    public var resultsLimit: Int?
    public var continuationMarker: String?
    public var desiredKeys: [String]?
    public var numbersAsStrings: Bool?
}

/// A query dictionary: `recordType`, `filterBy` (ANDed) and `sortBy`.
public struct WireQuery: Decodable, Sendable {
    public struct FilterDTO: Decodable, Sendable {
        public var comparator: String
        public var fieldName: String
        public var fieldValue: FieldValue
        public var distance: Double?
    }

    public struct SortDTO: Decodable, Sendable {
        public var fieldName: String
        public var ascending: Bool?
    }

    public var recordType: String
    public var filterBy: [FilterDTO]?
    public var sortBy: [SortDTO]?

    /// The model query, or the reason it is malformed.
    public func query() throws(NimbusError) -> Query {
        var filters: [Filter] = []
        for filter in filterBy ?? [] {
            guard let comparator = Filter.Comparator(rawValue: filter.comparator.uppercased()) else {
                throw .badRequest("unknown comparator '\(filter.comparator)'")
            }
            filters.append(Filter(filter.fieldName, comparator, filter.fieldValue))
        }
        let sorts = (sortBy ?? []).map { SortDescriptor($0.fieldName, ascending: $0.ascending ?? true) }
        return Query(recordType: recordType, filters: filters, sortDescriptors: sorts)
    }
}
