//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import NimbusModel
public import NimbusStore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension SQLStore {
    public func query(_ request: RecordQuery) async throws -> [Record] {
        var builder = QuerySQLBuilder(request: request, dialect: database.dialect)
        let (sql, binds) = try builder.build()
        let codec = RecordRowCodec(cipher: cipher, tenant: request.tenant, zoneName: request.zoneName)
        let zoneID = ZoneID(zoneName: request.zoneName, ownerRecordName: request.tenant.owner)
        let rows = try await database.readStatement(sql, binds)
        return try rows.map { try codec.record(from: $0, zoneID: zoneID) }
    }

    public func count(_ request: RecordQuery) async throws -> Int {
        var builder = QuerySQLBuilder(request: request, dialect: database.dialect)
        let (sql, binds) = try builder.buildCount()
        return Int(try await database.readStatement(sql, binds).first?.int(0) ?? 0)
    }
}

/// Builds the SELECT for a ``RecordQuery``: filters, order, and keyset pagination.
///
/// Results are ordered by each sort key with records lacking the key last (in both directions,
/// which SQLite and PostgreSQL disagree on by default, hence the explicit `IS NULL` key), then by
/// record name. A page resumes strictly after the previous page's last position, so records that
/// did not change are neither repeated nor skipped.
struct QuerySQLBuilder {
    let request: RecordQuery
    let dialect: SQLDialect
    private var binds: [SQLValue] = []

    init(request: RecordQuery, dialect: SQLDialect) {
        self.request = request
        self.dialect = dialect
    }

    mutating func build() throws -> (String, [SQLValue]) {
        var conditions = try filterConditions()
        let sorts = request.query.sortDescriptors.map { sort in
            (
                expression: sort.relativeLocation.map { distanceMillimetres(sort.fieldName, from: $0) } ?? column(for: sort.fieldName).expression,
                ascending: sort.ascending
            )
        }
        if let after = request.after {
            guard after.sortValues.count == sorts.count else {
                throw StoreError(.database, detail: "query position does not match the sort")
            }
            conditions.append(keyset(sorts: sorts, values: after.sortValues, recordName: after.recordName, from: 0))
        }
        let order = sorts.map { "(\($0.expression) IS NULL), \($0.expression) \($0.ascending ? "ASC" : "DESC")" }
        binds.append(.integer(Int64(request.limit)))
        let sql = """
            SELECT \(RecordRowCodec.columns) FROM records
            WHERE \(conditions.joined(separator: " AND "))
            ORDER BY \((order + ["record_name ASC"]).joined(separator: ", "))
            LIMIT ?
            """
        return (sql, binds)
    }

    /// `SELECT COUNT(*)` of the records the filters match.
    mutating func buildCount() throws -> (String, [SQLValue]) {
        let conditions = try filterConditions()
        return ("SELECT COUNT(*) FROM records WHERE \(conditions.joined(separator: " AND "))", binds)
    }

    // MARK: - Private

    /// The zone, the type, what the caller may read, and the query's filters; binds from the start.
    private mutating func filterConditions() throws -> [String] {
        var conditions = [
            "container = ?", "environment = ?", "owner = ?", "zone_name = ?", "record_type = ?", "is_deleted = 0",
        ]
        binds = SQLStore.binds(request.tenant, zone: request.zoneName) + [.text(request.query.recordType)]
        if let shareNames = request.shareNames {
            conditions.append(dialect.isMember("share_name"))
            binds.append(SQLStore.jsonArray(shareNames))
        }
        for filter in request.query.filters {
            conditions.append(try condition(for: filter))
        }
        return conditions
    }

    /// The SQL expression of a field, and the type it compares as. A field the schema does not
    /// know (yet) compares as the filter's value does: no stored value can contradict it, and
    /// PostgreSQL refuses to compare text with numbers.
    private func column(for field: String, comparedWith value: FieldValue? = nil) -> (expression: String, kind: SQLScalarKind) {
        switch SystemField(rawValue: field) {
        case .createTime: return ("created_at", .integer)
        case .modTime: return ("modified_at", .integer)
        case .createdBy: return ("created_by", .text)
        case .modifiedBy: return ("modified_by", .text)
        case .recordID: return ("record_name", .text)
        case nil:
            let type = request.fieldTypes[field]
            let path = type == .reference ? [field, "value", "recordName"] : [field, "value"]
            var kind: SQLScalarKind =
                switch type {
                case .int64, .timestamp: .integer
                case .double: .real
                default: .text
                }
            if type == nil, let value, let key = SortKeyValue(Self.scalar(of: value)) {
                switch key {
                case .integer: kind = .integer
                case .real: kind = .real
                case .text: kind = .text
                }
            }
            return (dialect.jsonScalar(column: "fields", path: path, as: kind), kind)
        }
    }

    private mutating func condition(for filter: Filter) throws -> String {
        let (expression, kind) = column(for: filter.fieldName, comparedWith: filter.value)
        switch filter.comparator {
        case .equals, .notEquals, .lessThan, .lessThanOrEquals, .greaterThan, .greaterThanOrEquals:
            let op =
                switch filter.comparator {
                case .equals: "="
                case .notEquals: "<>"
                case .lessThan: "<"
                case .lessThanOrEquals: "<="
                case .greaterThan: ">"
                default: ">="
                }
            binds.append(try Self.bind(filter.value))
            return "\(expression) \(op) ?"
        case .in, .notIn:
            guard case .list(_, let elements) = filter.value else {
                throw StoreError(.database, detail: "IN needs a list")
            }
            guard !elements.isEmpty else { return filter.comparator == .in ? "1 = 0" : "1 = 1" }
            binds.append(try Self.jsonList(filter.value))
            let membership = dialect.isMember(expression, of: kind)
            return filter.comparator == .in ? membership : "NOT (\(membership))"
        case .beginsWith, .notBeginsWith:
            guard case .string(let prefix) = filter.value else { throw StoreError(.database, detail: "BEGINS_WITH needs a string") }
            // substr keeps the comparison case-sensitive and free of LIKE's wildcards.
            // substr counts code points, not grapheme clusters.
            binds.append(.integer(Int64(prefix.unicodeScalars.count)))
            binds.append(.text(prefix))
            return "\(filter.comparator == .beginsWith ? "" : "NOT ")(substr(\(expression), 1, CAST(? AS INTEGER)) = ?)"
        case .listContains, .notListContains:
            let list = listElements(of: filter.fieldName, comparedWith: filter.value, alias: "list_element")
            binds.append(try Self.bind(filter.value))
            let found = "EXISTS (SELECT 1 FROM \(list.from) WHERE \(list.element) = ?)"
            return filter.comparator == .listContains ? found : negated(found, field: filter.fieldName)
        case .listMemberBeginsWith, .notListMemberBeginsWith:
            guard case .string(let prefix) = filter.value else {
                throw StoreError(.database, detail: "LIST_MEMBER_BEGINS_WITH needs a string")
            }
            let list = listElements(of: filter.fieldName, comparedWith: filter.value, alias: "list_element")
            binds.append(.integer(Int64(prefix.unicodeScalars.count)))
            binds.append(.text(prefix))
            let found = "EXISTS (SELECT 1 FROM \(list.from) WHERE substr(\(list.element), 1, CAST(? AS INTEGER)) = ?)"
            return filter.comparator == .listMemberBeginsWith ? found : negated(found, field: filter.fieldName)
        case .listContainsAny, .notListContainsAny:
            let list = listElements(of: filter.fieldName, comparedWith: filter.value, alias: "list_element")
            binds.append(try Self.jsonList(filter.value))
            let found = "EXISTS (SELECT 1 FROM \(list.from) WHERE \(dialect.isMember(list.element, of: list.kind)))"
            return filter.comparator == .listContainsAny ? found : negated(found, field: filter.fieldName)
        case .listContainsAll, .notListContainsAll:
            // No wanted value is missing from the list.
            let list = listElements(of: filter.fieldName, comparedWith: filter.value, alias: "list_element")
            let wanted = dialect.boundArrayValues(alias: "wanted", as: list.kind)
            binds.append(try Self.jsonList(filter.value))
            let all =
                "NOT EXISTS (SELECT 1 FROM \(wanted.from) WHERE NOT EXISTS (SELECT 1 FROM \(list.from) WHERE \(list.element) = \(wanted.value)))"
            return filter.comparator == .listContainsAll ? all : negated(all, field: filter.fieldName)
        case .containsAllTokens, .containsAnyTokens:
            guard case .string(let text) = filter.value else { throw StoreError(.database, detail: "token filters need a string") }
            var seen: Set<String> = []
            let tokens = SearchTokens.tokens(of: text).filter { seen.insert($0).inserted }.map { token in
                filter.fieldName == Filter.allTokensField ? token : SearchTokens.qualified(token, field: filter.fieldName)
            }
            guard !tokens.isEmpty else { return "1 = 0" }
            let all = filter.comparator == .containsAllTokens
            switch dialect {
            case .sqlite:
                binds.append(.text(tokens.map { "\"\($0)\"" }.joined(separator: all ? " " : " OR ")))
                return "rowid IN (SELECT rowid FROM record_search WHERE record_search MATCH ?)"
            case .postgres:
                // The expression and the predicate of the index (migration 15), so the planner uses it.
                binds.append(.text(tokens.map { "'\($0)'" }.joined(separator: all ? " & " : " | ")))
                return "(search_document IS NOT NULL AND array_to_tsvector(string_to_array(search_document, ' ')) @@ CAST(? AS tsquery))"
            }
        case .near:
            guard case .location(let origin) = filter.value, let distance = filter.distance else {
                throw StoreError(.database, detail: "NEAR needs a location and a distance")
            }
            binds.append(.real(distance))
            return "\(distanceKilometres(filter.fieldName, from: origin)) <= ?"
        }
    }

    /// The great-circle distance in kilometres from `origin` to a record's location field, as
    /// ``GeoDistance`` computes it (the same operations in the same order); `NULL` for a record
    /// without the field. The origin goes in as literals: it appears several times in a sort's
    /// keyset, and a `Double`'s description reads back as the same number.
    private func distanceKilometres(_ field: String, from origin: Location) -> String {
        let latitude = dialect.jsonScalar(column: "fields", path: [field, "value", "latitude"], as: .real)
        let longitude = dialect.jsonScalar(column: "fields", path: [field, "value", "longitude"], as: .real)
        let radians = "\(Double.pi / 180)"
        let a = """
            power(sin((\(latitude) - (\(origin.latitude))) * \(radians) / 2), 2) + cos((\(origin.latitude)) * \(radians)) \
            * cos(\(latitude) * \(radians)) * power(sin((\(longitude) - (\(origin.longitude))) * \(radians) / 2), 2)
            """
        // PostgreSQL's least() skips a NULL argument: a record without the field would be half
        // the world away instead of lacking a distance.
        let smaller = dialect == .postgres ? "least" : "min"
        return """
            (CASE WHEN \(latitude) IS NULL OR \(longitude) IS NULL THEN NULL \
            ELSE 2 * \(GeoDistance.earthRadius) * asin(\(smaller)(1.0, sqrt(\(a)))) END)
            """
    }

    /// ``distanceKilometres(_:from:)`` in whole millimetres, the sort key of a relative-location sort.
    private func distanceMillimetres(_ field: String, from origin: Location) -> String {
        "CAST(floor(\(distanceKilometres(field, from: origin)) * 1000000 + 0.5) AS BIGINT)"
    }

    /// The negation of a list condition, for records that have the field: a record lacking it
    /// matches no filter, negated ones included, as with SQL's `NULL` for scalar fields.
    private func negated(_ condition: String, field: String) -> String {
        "(\(dialect.jsonScalar(column: "fields", path: [field, "value"], as: .text)) IS NOT NULL AND NOT \(condition))"
    }

    /// The elements of a list field as a `FROM` item, the expression of one element, and the
    /// kind they compare as: the schema's element type, or for a field the schema does not know,
    /// the filter value's.
    private func listElements(of field: String, comparedWith value: FieldValue, alias: String)
        -> (from: String, element: String, kind: SQLScalarKind)
    {
        let type = request.fieldTypes[field]
        let sample = Self.scalar(of: value)
        var kind: SQLScalarKind =
            switch type?.elementType {
            case .int64?, .timestamp?: .integer
            case .double?: .real
            default: .text
            }
        if type == nil, let key = SortKeyValue(sample) {
            switch key {
            case .integer: kind = .integer
            case .real: kind = .real
            case .text: kind = .text
            }
        }
        let references = type == .referenceList || (type == nil && sample.type == .reference)
        let (from, element) = dialect.jsonArrayElements(column: "fields", path: [field, "value"], alias: alias, references: references, as: kind)
        return (from, element, kind)
    }

    private mutating func keyset(
        sorts: [(expression: String, ascending: Bool)],
        values: [SortKeyValue?],
        recordName: String,
        from index: Int
    ) -> String {
        guard index < sorts.count else {
            binds.append(.text(recordName))
            return "record_name > ?"
        }
        let expression = sorts[index].expression
        guard let value = values[index] else {
            // NULLs sort last: only records also lacking the key, later by the remaining keys, follow.
            return "(\(expression) IS NULL AND \(keyset(sorts: sorts, values: values, recordName: recordName, from: index + 1)))"
        }
        let op = sorts[index].ascending ? ">" : "<"
        binds.append(Self.bind(value))
        let beyond = "\(expression) \(op) ?"
        binds.append(Self.bind(value))
        let rest = keyset(sorts: sorts, values: values, recordName: recordName, from: index + 1)
        return "(\(expression) IS NULL OR \(beyond) OR (\(expression) = ? AND \(rest)))"
    }

    /// A list value (or a single value, as a list of one) as one JSON array bind: one bind for
    /// the whole list keeps the statement text the same for any length.
    private static func jsonList(_ value: FieldValue) throws -> SQLValue {
        let elements: [FieldValue]
        if case .list(_, let listed) = value { elements = listed } else { elements = [value] }
        var list = JSONWriter(capacity: elements.count * 16)
        list.beginArray()
        for element in elements {
            switch try bind(element) {
            case .integer(let integer): list.integer(integer)
            case .real(let real): list.double(real)
            case .text(let text): list.string(text)
            default: break
            }
        }
        list.endArray()
        return .text(String(decoding: list.bytes, as: UTF8.self))
    }

    /// A list's first element, for the kind of an `IN` list; any other value itself.
    private static func scalar(of value: FieldValue) -> FieldValue {
        if case .list(_, let elements) = value, let first = elements.first { return first }
        return value
    }

    private static func bind(_ value: FieldValue) throws -> SQLValue {
        guard let key = SortKeyValue(value) else {
            throw StoreError(.database, detail: "\(value.type.rawValue) values cannot be compared")
        }
        return bind(key)
    }

    private static func bind(_ value: SortKeyValue) -> SQLValue {
        switch value {
        case .integer(let integer): .integer(integer)
        case .real(let real): .real(real)
        case .text(let text): .text(text)
        }
    }
}
