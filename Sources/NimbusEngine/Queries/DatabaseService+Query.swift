//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import NimbusModel
import NimbusStore

/// One page of query results.
public struct QueryResult: Sendable, Hashable {
    /// The records on this page, in the query's sort order.
    public var records: [Record]
    /// Present when more results may follow: pass it back to get the next page.
    public var continuationMarker: String?
}

extension DatabaseService {
    /// The largest `NEAR` distance: half the Earth's circumference, beyond which every place is near.
    static let maximumNearDistance = 20_038.0

    /// The most filters a query or a query subscription may have.
    public static let maximumFilters = 200
    /// The most sort descriptors a query may have.
    public static let maximumSortDescriptors = 20

    /// Refuses a query too large to plan: checked before anything else, so a query of
    /// thousands of filters costs no schema read and no SQL.
    static func checkSize(of query: Query) throws(NimbusError) {
        if query.filters.count > maximumFilters {
            throw .limitExceeded("a query may have at most \(maximumFilters) filters, not \(query.filters.count)")
        }
        if query.sortDescriptors.count > maximumSortDescriptors {
            throw .limitExceeded("a query may have at most \(maximumSortDescriptors) sort descriptors, not \(query.sortDescriptors.count)")
        }
    }

    /// The comparators that look inside a list field.
    static let listComparators: Set<Filter.Comparator> = [
        .listContains, .notListContains, .listMemberBeginsWith, .notListMemberBeginsWith, .listContainsAny, .notListContainsAny,
        .listContainsAll, .notListContainsAll,
    ]

    /// The comparators whose value is a list.
    static let listValuedComparators: Set<Filter.Comparator> = [
        .in, .notIn, .listContainsAny, .notListContainsAny, .listContainsAll, .notListContainsAll,
    ]

    /// Runs a query over one zone, or every zone of the database, and returns a page of results.
    ///
    /// - Parameters:
    ///   - zoneID: the zone to search; `nil` for the default zone, or with `zoneWide` for every
    ///     zone.
    ///   - zoneWide: whether a query without a zone searches every zone of the database
    ///     (private and public; CloudKit's shared database refuses it, and so does this one).
    /// - Throws: `.badRequest` for filters that do not fit their field, encrypted fields in a filter or sort,
    ///   values of the wrong type, a bad `resultsLimit`, a marker from another query, or a
    ///   zone-wide query in the shared database; `.zoneNotFound`.
    public func queryRecords(
        _ query: Query,
        inZone zoneID: ZoneID?,
        zoneWide: Bool = false,
        resultsLimit: Int?,
        continuationMarker: String?,
        access: DatabaseAccess
    ) async throws(NimbusError) -> QueryResult {
        let limit = resultsLimit ?? Self.maximumOperations
        guard (1...Self.maximumOperations).contains(limit) else {
            throw .badRequest("resultsLimit must be between 1 and \(Self.maximumOperations)")
        }
        var (request, target) = try await recordQuery(query, inZone: zoneID, zoneWide: zoneWide, limit: limit, access: access)
        let tenant = target.tenant
        let markers = ContinuationMarker(sealer: sealer)
        if let continuationMarker {
            request.after = try markers.decode(continuationMarker, for: request)
        }
        var found = try await store { try await records.query(request) }
        // Share records get their share, looked up in their own zone.
        for zoneName in Set(found.filter { Share.isShareType($0.recordType) }.map(\.recordID.zoneID.zoneName)) {
            var zoneTarget = target
            zoneTarget.zoneName = zoneName
            let detailed = try await withShareDetails(
                found.filter { $0.recordID.zoneID.zoneName == zoneName },
                in: zoneTarget,
                reader: access.caller.userRecordName
            )
            let byName = Dictionary(detailed.map { (NameKey($0.recordID.recordName), $0) }) { first, _ in first }
            found = found.map { record in
                record.recordID.zoneID.zoneName.isSameName(as: zoneName) ? byName[NameKey(record.recordID.recordName)] ?? record : record
            }
        }
        let marker = found.count == limit ? found.last.map { markers.encode(request.position(of: $0), for: request) } : nil
        return QueryResult(
            records: found.map { record in
                var record = record
                record.recordID.zoneID = reportedZoneID(record.recordID.zoneID.zoneName, of: tenant)
                return record
            },
            continuationMarker: marker
        )
    }

    /// Counts the records a query's filters match, over what the caller may read (an extension:
    /// `records/count`). The sort does not matter; there is no limit.
    ///
    /// - Throws: what ``queryRecords(_:inZone:resultsLimit:continuationMarker:access:)`` throws
    ///   for the query and zone.
    public func countRecords(
        _ query: Query,
        inZone zoneID: ZoneID?,
        zoneWide: Bool = false,
        access: DatabaseAccess
    ) async throws(NimbusError) -> Int {
        let (request, _) = try await recordQuery(query, inZone: zoneID, zoneWide: zoneWide, limit: Self.maximumOperations, access: access)
        return try await store { try await records.count(request) }
    }

    /// The store's form of a query: its zone, checked to exist (or every zone), its filters
    /// checked against the schema, and the shares the caller may read.
    private func recordQuery(
        _ query: Query,
        inZone zoneID: ZoneID?,
        zoneWide: Bool,
        limit: Int,
        access: DatabaseAccess
    ) async throws(NimbusError) -> (RecordQuery, ZoneTarget) {
        try Self.checkSize(of: query)
        guard !query.recordType.isEmpty else { throw .badRequest("query needs a recordType") }
        // `zoneWide` counts only without a zone, as the protocol says.
        let isZoneWide = zoneWide && zoneID == nil
        if isZoneWide, access.scope == .shared {
            // CloudKit's words: a shared database is many owners' zones, each shared on its own.
            throw .badRequest("SharedDB does not support Zone Wide queries")
        }
        let target = try await target(zone: zoneID, access: access)
        let tenant = target.tenant
        let zoneName = target.zoneName
        if !isZoneWide, try await store({ try await records.zone(named: zoneName, of: tenant) }) == nil {
            throw NimbusError.zoneNotFound
        }
        let container = ContainerEnvironment(container: tenant.container, environment: tenant.environment)
        var fields = try await store { try await schema.fields(of: query.recordType, in: container) }
        var named = query.namingParent(typeHasParentField: fields[NameKey(SystemField.parentFieldName)] != nil)
        if container.environment == .production, Self.missingIndex(named, fields: fields) != nil {
            // A deployment may have added the index since the cache learned the type.
            fields = try await store { try await schema.refreshed(query.recordType, in: container) }
            named = query.namingParent(typeHasParentField: fields[NameKey(SystemField.parentFieldName)] != nil)
            if let missing = Self.missingIndex(named, fields: fields) { throw .badRequest(missing) }
        }
        let typed = try validated(named, fields: fields)
        var request = RecordQuery(
            tenant: tenant,
            zoneName: zoneName,
            query: typed,
            limit: limit,
            fieldTypes: fields.mapValues(\.type)
        )
        request.shareNames = target.shareAccess?.readableShares
        request.isZoneWide = isZoneWide
        return (request, target)
    }

    /// The first filter or sort of a production query whose field lacks the index it needs,
    /// as CloudKit words it; `nil` when every one has its index. System fields always do.
    static func missingIndex(_ query: Query, fields: [NameKey: FieldSchema]) -> String? {
        for filter in query.filters where SystemField(rawValue: filter.fieldName) == nil {
            let field = fields[NameKey(filter.fieldName)]
            let needsSearch = filter.comparator.searchesWords
            if needsSearch, filter.fieldName == Filter.allTokensField { continue }
            if needsSearch ? field?.isSearchable != true : field?.isQueryable != true {
                return "Field '\(filter.fieldName)' is not marked \(needsSearch ? "searchable" : "queryable")"
            }
        }
        for sort in query.sortDescriptors where SystemField(rawValue: sort.fieldName) == nil {
            if fields[NameKey(sort.fieldName)]?.isSortable != true { return "Field '\(sort.fieldName)' is not marked sortable" }
        }
        return nil
    }

    /// A token filter needs a string with a word in it, on a string field (or string list), a
    /// field the schema does not know yet, or ``Filter/allTokensField`` (every string field,
    /// whatever their markings: production checks no index for it).
    private static func checkTokenFilter(_ filter: Filter, field: FieldSchema?) throws(NimbusError) {
        let comparator = filter.comparator.rawValue
        guard case .string(let text) = filter.value else {
            throw .badRequest("\(comparator) on '\(filter.fieldName)' needs a STRING value, not \(filter.value.type.rawValue)")
        }
        guard !SearchTokens.tokens(of: text).isEmpty else {
            throw .badRequest("\(comparator) on '\(filter.fieldName)' needs at least one word to search for")
        }
        if SystemField(rawValue: filter.fieldName) != nil {
            throw .badRequest("\(comparator) searches string fields; '\(filter.fieldName)' is a system field")
        }
        guard filter.fieldName != Filter.allTokensField else { return }
        if let violation = FieldRules.nameViolation(filter.fieldName) { throw .badRequest(violation) }
        guard let field else { return }
        if field.isEncrypted {
            throw .badRequest("field '\(filter.fieldName)' is encrypted and cannot be used in a filter")
        }
        guard field.type == .string || field.type == .stringList else {
            throw .badRequest("\(comparator) searches string fields; '\(filter.fieldName)' is \(field.type.rawValue)")
        }
    }

    /// A `NEAR` filter needs a location, a distance in kilometres, and a location field (or one
    /// the schema does not know yet).
    private static func checkNearFilter(_ filter: Filter, field: FieldSchema?) throws(NimbusError) {
        guard case .location(let origin) = filter.value else {
            throw .badRequest("NEAR on '\(filter.fieldName)' needs a LOCATION value, not \(filter.value.type.rawValue)")
        }
        try checkCoordinates(origin, of: "NEAR on '\(filter.fieldName)'")
        guard let distance = filter.distance else {
            throw .badRequest("NEAR on '\(filter.fieldName)' needs a distance, in kilometres")
        }
        guard distance.isFinite, distance > 0, distance <= maximumNearDistance else {
            throw .badRequest("NEAR on '\(filter.fieldName)': the distance must be more than 0 and at most \(Int(maximumNearDistance)) km")
        }
        try checkLocationField(filter.fieldName, field: field, use: "NEAR")
    }

    /// A sort by `relativeLocation` needs a location field (or one the schema does not know yet).
    private static func checkDistanceSort(_ sort: SortDescriptor, field: FieldSchema?) throws(NimbusError) {
        if let origin = sort.relativeLocation { try checkCoordinates(origin, of: "the relativeLocation of the sort by '\(sort.fieldName)'") }
        try checkLocationField(sort.fieldName, field: field, use: "a sort by relativeLocation")
    }

    private static func checkCoordinates(_ location: Location, of use: String) throws(NimbusError) {
        guard (-90...90).contains(location.latitude), (-180...180).contains(location.longitude) else {
            throw .badRequest("\(use): latitude must be within -90...90 and longitude within -180...180")
        }
    }

    private static func checkLocationField(_ name: String, field: FieldSchema?, use: String) throws(NimbusError) {
        if SystemField(rawValue: name) != nil { throw .badRequest("\(use) needs a LOCATION field; '\(name)' is a system field") }
        if let violation = FieldRules.nameViolation(name) { throw .badRequest(violation) }
        guard let field else { return }
        if field.isEncrypted { throw .badRequest("field '\(name)' is encrypted and cannot be used in a query") }
        guard field.type == .location else { throw .badRequest("\(use) needs a LOCATION field; '\(name)' is \(field.type.rawValue)") }
    }

    /// The value of a filter on a system field, in the type its column compares: a value of
    /// another type would match nothing on one store and fail on another.
    private static func systemFieldValue(_ filter: Filter, _ system: SystemField, isList: Bool) throws(NimbusError) -> FieldValue {
        let wanted = system.valueType
        let scalarType = filter.value.type.elementType ?? filter.value.type
        // Names may come as strings too (a user record name, a record name), except the parent.
        if wanted == .reference, system != .parent, scalarType == .string { return filter.value }
        let target = isList ? (wanted.listType ?? wanted) : wanted
        guard let value = FieldRules.coerce(filter.value, to: target) else {
            let name = system == .parent ? SystemField.parentFieldName : filter.fieldName
            let accepted = wanted == .reference && system != .parent ? "a REFERENCE or STRING" : "a \(wanted.rawValue)"
            throw .badRequest("\(filter.comparator.rawValue) on '\(name)' needs \(accepted) value, not \(scalarType.rawValue)")
        }
        return value
    }

    /// Checks filters and sorts against the schema and gives untyped values the field's type.
    private func validated(_ query: Query, fields: [NameKey: FieldSchema]) throws(NimbusError) -> Query {
        var query = query
        for index in query.filters.indices {
            let filter = query.filters[index]
            let comparator = filter.comparator
            let isList = Self.listValuedComparators.contains(comparator)
            let looksInside = Self.listComparators.contains(comparator)
            if case .list = filter.value, !isList {
                throw .badRequest("\(comparator.rawValue) on '\(filter.fieldName)' needs a single value, not a list")
            }
            if isList, filter.value.type.isList == false {
                throw .badRequest("\(comparator.rawValue) on '\(filter.fieldName)' needs a list value")
            }
            if let violation = FieldRules.valueViolation(filter.value, field: filter.fieldName) { throw .badRequest(violation) }
            if comparator.searchesWords {
                try Self.checkTokenFilter(filter, field: fields[NameKey(filter.fieldName)])
                continue
            }
            if comparator == .near {
                try Self.checkNearFilter(filter, field: fields[NameKey(filter.fieldName)])
                continue
            }
            if filter.distance != nil {
                throw .badRequest("\(comparator.rawValue) on '\(filter.fieldName)' takes no distance; only NEAR does")
            }
            let scalarType = filter.value.type.elementType ?? filter.value.type
            guard [.string, .int64, .double, .timestamp, .reference, .bytes].contains(scalarType) else {
                throw .badRequest("\(comparator.rawValue) on '\(filter.fieldName)': \(scalarType.rawValue) values cannot be compared")
            }
            if (comparator == .listMemberBeginsWith || comparator == .notListMemberBeginsWith), scalarType != .string {
                throw .badRequest("\(comparator.rawValue) on '\(filter.fieldName)' needs a STRING value")
            }
            if let system = SystemField(rawValue: filter.fieldName) {
                if looksInside { throw .badRequest("\(comparator.rawValue) needs a list field; '\(filter.fieldName)' is not a list") }
                query.filters[index].value = try Self.systemFieldValue(filter, system, isList: isList)
                continue
            }
            if let violation = FieldRules.nameViolation(filter.fieldName) { throw .badRequest(violation) }
            guard let field = fields[NameKey(filter.fieldName)] else { continue }
            if field.isEncrypted {
                throw .badRequest("field '\(filter.fieldName)' is encrypted and cannot be used in a filter")
            }
            if looksInside, !field.type.isList {
                throw .badRequest("\(comparator.rawValue) needs a list field; '\(filter.fieldName)' is \(field.type.rawValue)")
            }
            if !looksInside, field.type.isList {
                throw .badRequest("field '\(filter.fieldName)' is a list (\(field.type.rawValue)): filter it with a LIST_ comparator")
            }
            let wanted: FieldType =
                if looksInside {
                    isList ? field.type : (field.type.elementType ?? field.type)
                } else {
                    isList ? (field.type.listType ?? field.type) : field.type
                }
            guard let value = FieldRules.coerce(filter.value, to: wanted) else {
                throw .badRequest("field '\(filter.fieldName)' is \(field.type.rawValue), the filter value is \(filter.value.type.rawValue)")
            }
            query.filters[index].value = value
        }
        for sort in query.sortDescriptors {
            if sort.relativeLocation != nil {
                try Self.checkDistanceSort(sort, field: fields[NameKey(sort.fieldName)])
                continue
            }
            if SystemField(rawValue: sort.fieldName) != nil { continue }
            if let violation = FieldRules.nameViolation(sort.fieldName) { throw .badRequest(violation) }
            if let field = fields[NameKey(sort.fieldName)], field.isEncrypted {
                throw .badRequest("field '\(sort.fieldName)' is encrypted and cannot be used to sort")
            }
            if let field = fields[NameKey(sort.fieldName)], field.type.isList || field.type == .location || field.type == .asset {
                throw .badRequest("field '\(sort.fieldName)' of type \(field.type.rawValue) cannot be used to sort")
            }
        }
        return query
    }
}
