//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import NimbusModel

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A query as the store runs it: already validated by the engine.
///
/// Results are ordered by the sort descriptors and then by record name (zone name and record
/// name for a zone-wide query), so every record has one position and a page can resume after
/// ``after``.
public struct RecordQuery: Sendable, Hashable {
    /// The database the query runs in.
    public var tenant: Tenant
    /// The zone the query searches, unless ``isZoneWide``.
    public var zoneName: String
    /// Whether the query searches every zone of the tenant (`zoneWide`); ``zoneName`` is then
    /// ignored.
    public var isZoneWide = false
    /// The record type, filters and sort descriptors, with values typed by the schema.
    public var query: Query
    /// The most results to return.
    public var limit: Int
    /// Resume after this position (the sort key of the last record of the previous page).
    public var after: QueryPosition?
    /// The schema type of each record field the query names.
    public var fieldTypes: [NameKey: FieldType]
    /// Only records in the hierarchies of these shares (a participant's view); `nil`: every record.
    public var shareNames: [String]?

    /// Creates a query for the store.
    public init(
        tenant: Tenant,
        zoneName: String,
        query: Query,
        limit: Int,
        after: QueryPosition? = nil,
        fieldTypes: [NameKey: FieldType] = [:]
    ) {
        self.tenant = tenant
        self.zoneName = zoneName
        self.query = query
        self.limit = limit
        self.after = after
        self.fieldTypes = fieldTypes
    }

    /// The position of a record in this query's order, to resume after it.
    public func position(of record: Record) -> QueryPosition {
        QueryPosition(
            sortValues: query.sortDescriptors.map { Self.sortKey(of: record, sort: $0) },
            recordName: record.recordID.recordName,
            zoneName: isZoneWide ? record.recordID.zoneID.zoneName : nil
        )
    }

    /// The value a record sorts by for a sort descriptor; `nil` where the record lacks it. By a
    /// relative location, that is the distance in whole millimetres (``GeoDistance``).
    public static func sortKey(of record: Record, sort: SortDescriptor) -> SortKeyValue? {
        guard let origin = sort.relativeLocation else { return sortKey(of: record, field: sort.fieldName) }
        guard case .location(let location)? = record.fields[NameKey(sort.fieldName)] else { return nil }
        return .integer(GeoDistance.millimetres(GeoDistance.kilometres(from: origin, to: location)))
    }

    /// The value a record sorts by for a field; `nil` where the record lacks it.
    public static func sortKey(of record: Record, field: String) -> SortKeyValue? {
        switch SystemField(rawValue: field) {
        case .createTime: return .integer(record.created.timestamp)
        case .modTime: return .integer(record.modified.timestamp)
        case .createdBy: return .text(record.created.userRecordName)
        case .modifiedBy: return .text(record.modified.userRecordName)
        case .recordID: return .text(record.recordID.recordName)
        case .parent: return record.parentRecordName.map { .text($0) }
        case nil: return record.fields[NameKey(field)].flatMap(SortKeyValue.init)
        }
    }
}

/// A record's position in a query's order: its sort key values and its name.
public struct QueryPosition: Sendable, Hashable, Codable {
    /// One value per sort descriptor; `nil` where the record lacks the field.
    public var sortValues: [SortKeyValue?]
    /// The record's name, which breaks ties between equal sort values.
    public var recordName: String
    /// The record's zone, which breaks ties before the record name in a zone-wide query.
    public var zoneName: String?

    /// Creates a position.
    public init(sortValues: [SortKeyValue?], recordName: String, zoneName: String? = nil) {
        self.sortValues = sortValues
        self.recordName = recordName
        self.zoneName = zoneName
    }
}

/// A sortable scalar, as a sort key holds it.
public enum SortKeyValue: Sendable, Hashable, Codable {
    /// An integer, such as an `INT64` value or a timestamp in milliseconds.
    case integer(Int64)
    /// A floating-point number.
    case real(Double)
    /// A string, such as a `STRING` value, a record name or base64 bytes.
    case text(String)

    /// The sortable form of a field value, or `nil` for values that have no order.
    public init?(_ value: FieldValue) {
        switch value {
        case .string(let text): self = .text(text)
        case .int64(let integer), .timestamp(let integer): self = .integer(integer)
        case .double(let real): self = .real(real)
        case .reference(let reference): self = .text(reference.recordName)
        case .bytes(let data): self = .text(data.base64EncodedString())
        default: return nil
        }
    }
}
