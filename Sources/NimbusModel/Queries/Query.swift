//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

/// A query: a record type, filters that are all ANDed, and sort descriptors.
public struct Query: Sendable, Hashable {
    /// The record type to search.
    public var recordType: String
    /// Filters; a record matches when it passes every one.
    public var filters: [Filter]
    /// Sort descriptors, most significant first.
    public var sortDescriptors: [SortDescriptor]

    /// Creates a query.
    public init(recordType: String, filters: [Filter] = [], sortDescriptors: [SortDescriptor] = []) {
        self.recordType = recordType
        self.filters = filters
        self.sortDescriptors = sortDescriptors
    }
}

/// One condition of a query: a field compared with a value.
public struct Filter: Sendable, Hashable {
    /// The comparison, with CloudKit Web Services' names as raw values.
    public enum Comparator: String, Sendable, Hashable, CaseIterable {
        case equals = "EQUALS"
        case notEquals = "NOT_EQUALS"
        case lessThan = "LESS_THAN"
        case lessThanOrEquals = "LESS_THAN_OR_EQUALS"
        case greaterThan = "GREATER_THAN"
        case greaterThanOrEquals = "GREATER_THAN_OR_EQUALS"
        case near = "NEAR"
        case `in` = "IN"
        case notIn = "NOT_IN"
        case beginsWith = "BEGINS_WITH"
        case notBeginsWith = "NOT_BEGINS_WITH"
        case containsAllTokens = "CONTAINS_ALL_TOKENS"
        case containsAnyTokens = "CONTAINS_ANY_TOKENS"
        case listContains = "LIST_CONTAINS"
        case notListContains = "NOT_LIST_CONTAINS"
        case listContainsAny = "LIST_CONTAINS_ANY"
        case notListContainsAny = "NOT_LIST_CONTAINS_ANY"
        case listContainsAll = "LIST_CONTAINS_ALL"
        case notListContainsAll = "NOT_LIST_CONTAINS_ALL"
        case listMemberBeginsWith = "LIST_MEMBER_BEGINS_WITH"
        case notListMemberBeginsWith = "NOT_LIST_MEMBER_BEGINS_WITH"

        /// Whether the comparator searches the words of string fields (`CONTAINS_ANY_TOKENS`,
        /// `CONTAINS_ALL_TOKENS`).
        public var searchesWords: Bool { self == .containsAnyTokens || self == .containsAllTokens }
    }

    /// The field name of a `CONTAINS_ANY_TOKENS` or `CONTAINS_ALL_TOKENS` filter that searches
    /// every string field of a record, as CloudKit's `self CONTAINS` does (a Nimbus extension
    /// on the wire).
    public static let allTokensField = "allTokens"

    /// The comparison.
    public var comparator: Comparator
    /// The field compared, a record field or a system field such as `___createTime`.
    public var fieldName: String
    /// The value compared with.
    public var value: FieldValue
    /// For `NEAR`: how far from the value's location a match may be, in kilometres.
    public var distance: Double?

    /// Creates a filter.
    public init(_ fieldName: String, _ comparator: Comparator, _ value: FieldValue, distance: Double? = nil) {
        self.fieldName = fieldName
        self.comparator = comparator
        self.value = value
        self.distance = distance
    }

    /// A `NEAR` filter: records whose location field is within `kilometres` of `location`.
    public static func near(_ fieldName: String, _ location: Location, withinKilometres kilometres: Double) -> Filter {
        Filter(fieldName, .near, .location(location), distance: kilometres)
    }
}

/// How to order query results by one field.
public struct SortDescriptor: Sendable, Hashable {
    /// The field sorted by, a record field or a system field such as `___modTime`.
    public var fieldName: String
    /// Whether smaller values come first.
    public var ascending: Bool
    /// For a location field: sort by the distance from this location instead.
    public var relativeLocation: Location?

    /// Creates a sort descriptor.
    public init(_ fieldName: String, ascending: Bool = true, relativeLocation: Location? = nil) {
        self.fieldName = fieldName
        self.ascending = ascending
        self.relativeLocation = relativeLocation
    }
}
