//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

/// What remains of a deleted record: enough for the change feed to report it.
public struct Tombstone: Sendable, Hashable {
    /// The deleted record's name.
    public var recordName: String
    /// The deleted record's type.
    public var recordType: String

    /// Creates a tombstone.
    public init(recordName: String, recordType: String) {
        self.recordName = recordName
        self.recordType = recordType
    }
}
