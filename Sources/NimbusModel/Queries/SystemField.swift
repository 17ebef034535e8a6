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
}
