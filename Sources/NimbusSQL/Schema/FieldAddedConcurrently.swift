//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

/// A write added a field that another write, committed since this one read the fields, added
/// with another type or encryption: a lost race, and the write runs again
/// (``PostgresFailure/isSerializationFailure``).
///
/// Only PostgreSQL gets here, where writes of different tenants run at once. On SQLite writes
/// run one after another, and the caller always read the stored field first.
struct FieldAddedConcurrently: Error, CustomStringConvertible {
    var recordType: String
    var field: String

    var description: String {
        "field \(field) of \(recordType) was added by another write with another type"
    }
}
