//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

/// Who changed a record, when, and from which device: CloudKit's `created`/`modified` blocks.
public struct ChangeStamp: Sendable, Hashable {
    /// Milliseconds since 1970-01-01 UTC.
    public var timestamp: Int64
    /// The user record name of the user who made the change.
    public var userRecordName: String
    /// The device that made the change; clients require it to be present.
    public var deviceID: String

    /// Creates a change stamp.
    public init(timestamp: Int64, userRecordName: String, deviceID: String = "1") {
        self.timestamp = timestamp
        self.userRecordName = userRecordName
        self.deviceID = deviceID
    }
}
