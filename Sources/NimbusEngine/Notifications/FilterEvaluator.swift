//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusModel
import NimbusStore

/// Evaluates query filters against one record in memory: how query subscriptions and
/// notification rules decide whether a changed record matches.
///
/// It follows the SQL store's semantics: a record lacking the field matches no comparator,
/// negated ones included (SQL's `NULL`); numbers compare by value whatever their type; strings
/// compare by their UTF-8 bytes, as SQLite's default collation does.
enum FilterEvaluator {
    /// Why these filters cannot be evaluated on a change, or `nil` when they can.
    static func unsupported(_ filters: [Filter]) -> String? {
        for filter in filters where filter.comparator == .near {
            return "comparator NEAR on '\(filter.fieldName)' is not supported in subscriptions"
        }
        return nil
    }

    /// Whether the record matches every filter.
    static func matches(_ record: Record, _ filters: [Filter]) -> Bool {
        filters.allSatisfy { matches(record, $0) }
    }

    static func matches(_ record: Record, _ filter: Filter) -> Bool {
        // allTokens names no field: the words come from the record, before any field lookup.
        if filter.comparator.searchesWords { return matchesWords(record, filter) }
        guard let value = value(of: filter.fieldName, in: record) else { return false }
        switch filter.comparator {
        case .equals: return compare(value, filter.value) == 0
        case .notEquals: return compare(value, filter.value).map { $0 != 0 } ?? false
        case .lessThan: return compare(value, filter.value).map { $0 < 0 } ?? false
        case .lessThanOrEquals: return compare(value, filter.value).map { $0 <= 0 } ?? false
        case .greaterThan: return compare(value, filter.value).map { $0 > 0 } ?? false
        case .greaterThanOrEquals: return compare(value, filter.value).map { $0 >= 0 } ?? false
        case .in: return elements(of: filter.value).contains { compare(value, $0) == 0 }
        case .notIn: return !elements(of: filter.value).contains { compare(value, $0) == 0 }
        case .beginsWith: return hasPrefix(value, filter.value)
        case .notBeginsWith: return text(of: value) != nil && !hasPrefix(value, filter.value)
        case .containsAnyTokens, .containsAllTokens:
            return matchesWords(record, filter)
        case .listContains, .notListContains:
            guard case .list(_, let members) = value else { return false }
            let found = members.contains { compare($0, filter.value) == 0 }
            return filter.comparator == .listContains ? found : !found
        case .listContainsAny, .notListContainsAny:
            guard case .list(_, let members) = value else { return false }
            let found = elements(of: filter.value).contains { wanted in members.contains { compare($0, wanted) == 0 } }
            return filter.comparator == .listContainsAny ? found : !found
        case .listContainsAll, .notListContainsAll:
            guard case .list(_, let members) = value else { return false }
            let all = elements(of: filter.value).allSatisfy { wanted in members.contains { compare($0, wanted) == 0 } }
            return filter.comparator == .listContainsAll ? all : !all
        case .listMemberBeginsWith, .notListMemberBeginsWith:
            guard case .list(_, let members) = value else { return false }
            let found = members.contains { hasPrefix($0, filter.value) }
            return filter.comparator == .listMemberBeginsWith ? found : !found
        case .near:
            return false
        }
    }

    // MARK: - Private

    private static func value(of field: String, in record: Record) -> FieldValue? {
        switch SystemField(rawValue: field) {
        case .createTime: .timestamp(record.created.timestamp)
        case .modTime: .timestamp(record.modified.timestamp)
        case .createdBy: .string(record.created.userRecordName)
        case .modifiedBy: .string(record.modified.userRecordName)
        case .recordID: .string(record.recordID.recordName)
        case .parent: parent(of: record)
        // `parent` is the record's parent, unless the record has a field of that name (queries
        // decide by the record type's schema; a record at hand has its fields).
        case nil where field == SystemField.parentFieldName && record.fields[NameKey(field)] == nil: parent(of: record)
        case nil: record.fields[NameKey(field)]
        }
    }

    private static func parent(of record: Record) -> FieldValue? {
        record.parentRecordName.map { .reference(Reference(recordName: $0)) }
    }

    /// -1, 0 or 1; `nil` when the two have no common order.
    private static func compare(_ lhs: FieldValue, _ rhs: FieldValue) -> Int? {
        guard let left = SortKeyValue(lhs), let right = SortKeyValue(rhs) else { return nil }
        switch (left, right) {
        case (.text(let a), .text(let b)):
            if a == b { return 0 }
            return a.utf8.lexicographicallyPrecedes(b.utf8) ? -1 : 1
        case (.integer(let a), .integer(let b)):
            return a == b ? 0 : (a < b ? -1 : 1)
        default:
            guard let a = number(left), let b = number(right) else { return nil }
            return a == b ? 0 : (a < b ? -1 : 1)
        }
    }

    private static func number(_ value: SortKeyValue) -> Double? {
        switch value {
        case .integer(let integer): Double(integer)
        case .real(let real): real
        case .text: nil
        }
    }

    private static func elements(of value: FieldValue) -> [FieldValue] {
        if case .list(_, let elements) = value { return elements }
        return [value]
    }

    private static func text(of value: FieldValue) -> String? {
        if case .string(let text) = value { return text }
        return nil
    }

    private static func hasPrefix(_ value: FieldValue, _ prefix: FieldValue) -> Bool {
        guard let whole = text(of: value), let start = text(of: prefix) else { return false }
        return whole.unicodeScalars.starts(with: start.unicodeScalars)
    }

    /// A token filter, with the words the store's search index holds (``SearchTokens``): of the
    /// field, or of every string field for ``Filter/allTokensField``.
    private static func matchesWords(_ record: Record, _ filter: Filter) -> Bool {
        guard let wanted = text(of: filter.value) else { return false }
        let want = Set(SearchTokens.tokens(of: wanted))
        guard !want.isEmpty else { return false }
        let have: Set<String> =
            if filter.fieldName == Filter.allTokensField {
                record.fields.values.reduce(into: []) { $0.formUnion(SearchTokens.words(of: $1)) }
            } else {
                Set(record.fields[NameKey(filter.fieldName)].map(SearchTokens.words(of:)) ?? [])
            }
        return filter.comparator == .containsAnyTokens ? !have.isDisjoint(with: want) : want.isSubset(of: have)
    }
}
