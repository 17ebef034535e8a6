//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

/// The system fields every record type has, usable in queries by these names.
public enum SystemField: String, Sendable, CaseIterable {
    case createTime = "___createTime"
    case modTime = "___modTime"
    case createdBy = "___createdBy"
    case modifiedBy = "___modifiedBy"
    case recordID = "___recordID"
    /// The record's parent (`parent` in a record dictionary), compared as a reference. A
    /// filter on `parent` means this, unless the record type has a field of that name.
    case parent = "___parent"

    /// The name queries use for the parent, as CloudKit's do.
    public static let parentFieldName = "parent"

    /// What a filter compares the field with: times are timestamps; the record's name, its
    /// parent and the users who created and last changed it are names, given as references
    /// (or, except the parent, as strings).
    public var valueType: FieldType {
        switch self {
        case .createTime, .modTime: .timestamp
        case .createdBy, .modifiedBy, .recordID, .parent: .reference
        }
    }
}

extension Query {
    /// The query with `parent` read as the record's parent (``SystemField/parent``), unless the
    /// record type has a field of that name: CloudKit's records have a parent, not a field
    /// called so, and a query filters on it without a helper field.
    package func namingParent(typeHasParentField: Bool) -> Query {
        guard !typeHasParentField else { return self }
        var query = self
        for index in query.filters.indices where query.filters[index].fieldName == SystemField.parentFieldName {
            query.filters[index].fieldName = SystemField.parent.rawValue
        }
        for index in query.sortDescriptors.indices where query.sortDescriptors[index].fieldName == SystemField.parentFieldName {
            query.sortDescriptors[index].fieldName = SystemField.parent.rawValue
        }
        return query
    }
}
