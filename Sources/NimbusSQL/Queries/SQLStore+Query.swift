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
        var statements: [(sql: String, binds: [SQLValue])] = []
        for part in builder.parts {
            if let statement = try builder.build(part) { statements.append(statement) }
        }
        fieldIndexes.request(builder.indexes)
        let limit = request.limit
        guard let first = statements.first else { return [] }
        // Planned for each run: a query's best plan (which index, how many rows a value
        // selects) depends on the values, and its shapes are as many as the requests'.
        var rows = try await database.readStatement(first.sql, first.binds, reusingPlan: false)
        if rows.count < limit, statements.count > 1 {
            // The page goes on in the next part: read them all again in one snapshot, so a
            // record that gained or lost the field in between is read once.
            rows = try await database.read { [statements] connection in
                var rows: [SQLRow] = []
                for statement in statements where rows.count < limit {
                    rows += try await connection.query(statement.sql, statement.binds, reusingPlan: false).prefix(limit - rows.count)
                }
                return rows
            }
        }
        guard request.isZoneWide else {
            let codec = RecordRowCodec(cipher: cipher, tenant: request.tenant, zoneName: request.zoneName)
            let zoneID = ZoneID(zoneName: request.zoneName, ownerRecordName: request.tenant.owner)
            return try rows.map { try codec.record(from: $0, zoneID: zoneID) }
        }
        // A zone-wide query's rows name their zone after the codec's columns.
        return try rows.map { row in
            let zoneName = row.string(RecordRowCodec.columnCount)
            let codec = RecordRowCodec(cipher: cipher, tenant: request.tenant, zoneName: zoneName)
            return try codec.record(from: row, zoneID: ZoneID(zoneName: zoneName, ownerRecordName: request.tenant.owner))
        }
    }

    public func count(_ request: RecordQuery) async throws -> Int {
        var builder = QuerySQLBuilder(request: request, dialect: database.dialect)
        let (sql, binds) = try builder.buildCount()
        fieldIndexes.request(builder.indexes)
        return Int(try await database.readStatement(sql, binds, reusingPlan: false).first?.int(0) ?? 0)
    }

    /// The names of the field indexes built so far (`FieldIndex`), by any process.
    package func fieldIndexNames() async throws -> Set<String> {
        let rows = try await database.readStatement(database.dialect.indexNamesWithPrefix, [.text(FieldIndex.namePrefix)])
        return Set(rows.map { $0.string(0) })
    }

    /// Waits until the indexes queries asked for so far are built (or failed): for tests that
    /// look at query plans.
    package func waitForFieldIndexes() async {
        await fieldIndexes.waitUntilIdle()
    }
}

/// Which records of a query's order one statement reads.
///
/// A query sorted by a field reads in two parts: the records that have the field, in the
/// field's order, which an index on the field (``FieldIndex``) yields as a range, read forwards
/// or backwards; then the records without it, by the remaining keys. One statement ordering
/// by `(field IS NULL), field` would be correct too, but no index yields that order, so it
/// would sort the whole match to return a page. Where a filter already excludes records
/// without the field, the second part is skipped.
enum QueryPart {
    /// Every match, records lacking a sort key after those that have it: the whole order
    /// in one statement (no sort, or a sort no index can yield, such as by distance).
    case all
    /// The matches that have the first sort key.
    case present
    /// The matches without the first sort key.
    case absent
}

/// Builds the SELECT for a ``RecordQuery``: filters, order, and keyset pagination.
///
/// Results are ordered by each sort key with records lacking the key last (in both directions,
/// which SQLite and PostgreSQL disagree on by default, hence the explicit `IS NULL` key or the
/// ``QueryPart``s), then by record name. A page resumes strictly after the previous page's last
/// position, so records that did not change are neither repeated nor skipped.
struct QuerySQLBuilder {
    let request: RecordQuery
    let dialect: SQLDialect
    private var binds: [SQLValue] = []

    init(request: RecordQuery, dialect: SQLDialect) {
        self.request = request
        self.dialect = dialect
    }

    /// The indexes the query's statements can use: one on each value a filter compares (`=`,
    /// the orderings, `IN`), and one on the first sort field, which leads with the first field
    /// an `EQUALS` filter names, if any (that index then also serves the filters on both).
    var indexes: Set<FieldIndex> {
        var indexes: Set<FieldIndex> = []
        for filter in request.query.filters {
            switch filter.comparator {
            case .equals, .lessThan, .lessThanOrEquals, .greaterThan, .greaterThanOrEquals, .in:
                if let index = fieldIndex(filter.fieldName, comparedWith: filter.value) { indexes.insert(index) }
            default:
                break
            }
        }
        guard let sort = request.query.sortDescriptors.first, sort.relativeLocation == nil, let sortIndex = fieldIndex(sort.fieldName)
        else { return indexes }
        let equality = request.query.filters.first { $0.comparator == .equals && $0.fieldName != sort.fieldName }
        if let equality, let equalityIndex = fieldIndex(equality.fieldName, comparedWith: equality.value) {
            // It serves the filters on both fields too; the equality's own index stays where
            // records without the sort field are read as well (their part filters on it alone).
            if parts == [.present] { indexes.remove(equalityIndex) }
            indexes.remove(sortIndex)
            indexes.insert(FieldIndex(expressions: equalityIndex.expressions + sortIndex.expressions))
        } else {
            indexes.insert(sortIndex)
        }
        return indexes
    }

    /// The parts to read, in order, until a page is full.
    var parts: [QueryPart] {
        guard let first = request.query.sortDescriptors.first, first.relativeLocation == nil else { return [.all] }
        // System fields are columns no record lacks, but for the parent.
        if let system = SystemField(rawValue: first.fieldName), system != .parent { return [.present] }
        // Every scalar comparison is false or NULL for a record without the field, but for an
        // empty NOT_IN, which every record passes.
        let excludesAbsent = request.query.filters.contains { filter in
            guard filter.fieldName == first.fieldName else { return false }
            if filter.comparator == .notIn, case .list(_, let elements) = filter.value, elements.isEmpty { return false }
            switch filter.comparator {
            case .equals, .notEquals, .lessThan, .lessThanOrEquals, .greaterThan, .greaterThanOrEquals, .in, .notIn,
                .beginsWith, .notBeginsWith:
                return true
            default:
                return false
            }
        }
        return excludesAbsent ? [.present] : [.present, .absent]
    }

    /// The whole order in one statement.
    mutating func build() throws -> (String, [SQLValue]) {
        guard let statement = try build(.all) else { throw StoreError(.database, detail: "query part has no statement") }
        return statement
    }

    /// The statement of one part; `nil` where the position to resume after lies beyond it.
    mutating func build(_ part: QueryPart) throws -> (String, [SQLValue])? {
        var conditions = try filterConditions()
        let sorts = request.query.sortDescriptors.map { sort in
            (
                expression: sort.relativeLocation.map { distanceMillimetres(sort.fieldName, from: $0) } ?? column(for: sort.fieldName).expression,
                ascending: sort.ascending
            )
        }
        if let after = request.after, after.sortValues.count != sorts.count {
            throw StoreError(.database, detail: "query position does not match the sort")
        }
        let order: [String]
        switch part {
        case .all:
            if let after = request.after {
                conditions.append(keyset(sorts: sorts, values: after.sortValues, recordName: after.recordName, from: 0))
            }
            order = sorts.map(Self.absentLast)
        case .present:
            let first = sorts[0]
            conditions.append("\(first.expression) IS NOT NULL")
            if let after = request.after {
                guard let value = after.sortValues[0] else { return nil }
                // The range first (the index reads from there), then the tie-break within it.
                let op = first.ascending ? ">" : "<"
                binds.append(Self.bind(value))
                binds.append(Self.bind(value))
                binds.append(Self.bind(value))
                let rest = keyset(sorts: sorts, values: after.sortValues, recordName: after.recordName, from: 1)
                conditions.append("\(first.expression) \(op)= ? AND (\(first.expression) \(op) ? OR (\(first.expression) = ? AND \(rest)))")
            }
            order =
                ["\(first.expression) \(first.ascending ? "ASC" : "DESC")"]
                + sorts.dropFirst().map(Self.absentLast)
        case .absent:
            conditions.append("\(sorts[0].expression) IS NULL")
            // After a record with the key, every record without it follows.
            if let after = request.after, after.sortValues[0] == nil {
                conditions.append(keyset(sorts: sorts, values: after.sortValues, recordName: after.recordName, from: 1))
            }
            order = sorts.dropFirst().map(Self.absentLast)
        }
        binds.append(.integer(Int64(request.limit)))
        let sql = """
            SELECT \(RecordRowCodec.columns)\(request.isZoneWide ? ", zone_name" : "") FROM records
            WHERE \(conditions.joined(separator: " AND "))
            ORDER BY \((order + [request.isZoneWide ? "zone_name ASC, record_name ASC" : "record_name ASC"]).joined(separator: ", "))
            LIMIT ?
            """
        return (sql, binds)
    }

    /// The `ORDER BY` terms of a sort key with records lacking it last, in either direction.
    private static func absentLast(_ sort: (expression: String, ascending: Bool)) -> String {
        "(\(sort.expression) IS NULL), \(sort.expression) \(sort.ascending ? "ASC" : "DESC")"
    }

    /// `SELECT COUNT(*)` of the records the filters match.
    mutating func buildCount() throws -> (String, [SQLValue]) {
        let conditions = try filterConditions()
        return ("SELECT COUNT(*) FROM records WHERE \(conditions.joined(separator: " AND "))", binds)
    }

    // MARK: - Private

    /// The zone, the type, what the caller may read, and the query's filters; binds from the start.
    private mutating func filterConditions() throws -> [String] {
        var conditions: [String]
        if request.isZoneWide {
            conditions = ["container = ?", "environment = ?", "owner = ?", "record_type = ?", "is_deleted = 0"]
            binds = SQLStore.binds(request.tenant) + [.text(request.query.recordType)]
        } else {
            conditions = ["container = ?", "environment = ?", "owner = ?", "zone_name = ?", "record_type = ?", "is_deleted = 0"]
            binds = SQLStore.binds(request.tenant, zone: request.zoneName) + [.text(request.query.recordType)]
        }
        if let shareNames = request.shareNames {
            conditions.append(dialect.isAmong("share_name"))
            binds.append(.textList(shareNames))
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
        case .parent: return ("parent_name", .text)
        case nil:
            let type = request.fieldTypes[NameKey(field)]
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

    /// The index on a field or system column that compares or sorts by value, as a query
    /// reads it; `nil` for the record name (the primary key serves it), for fields whose
    /// values are not one scalar, and for fields the schema does not know.
    private func fieldIndex(_ field: String, comparedWith value: FieldValue? = nil) -> FieldIndex? {
        switch SystemField(rawValue: field) {
        // The primary key serves the record name, and records_by_parent the parent.
        case .recordID, .parent: return nil
        case .some: break
        case nil:
            // A field the schema does not know is on no record of the type: no index helps,
            // and a query must not be able to build indexes for names it makes up.
            switch request.fieldTypes[NameKey(field)] {
            case .string?, .int64?, .double?, .timestamp?, .reference?: break
            default: return nil
            }
        }
        return FieldIndex(expression: column(for: field, comparedWith: value).expression)
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
            let match = dialect.searchMatch(tokens, all: filter.comparator == .containsAllTokens)
            binds.append(contentsOf: match.binds)
            return match.condition
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
        // NULL is decided first: PostgreSQL's least() would skip it, and a record without the
        // field would be half the world away instead of lacking a distance.
        return """
            (CASE WHEN \(latitude) IS NULL OR \(longitude) IS NULL THEN NULL \
            ELSE 2 * \(GeoDistance.earthRadius) * asin(\(dialect.smaller("1.0", "sqrt(\(a))"))) END)
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
        let type = request.fieldTypes[NameKey(field)]
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
            guard request.isZoneWide else {
                binds.append(.text(recordName))
                return "record_name > ?"
            }
            let zoneName = request.after?.zoneName ?? ""
            binds += [.text(zoneName), .text(zoneName), .text(recordName)]
            return "(zone_name > ? OR (zone_name = ? AND record_name > ?))"
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
