//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

/// A reference from one record to another in the same zone.
///
/// CloudKit references never cross zones. The action decides what the server does about the
/// target: nothing, delete the referring record with it, or require that it exists.
public struct Reference: Sendable, Hashable {
    /// What the server does about a reference's target.
    public enum Action: String, Sendable, Hashable, CaseIterable {
        /// No constraint.
        case none = "NONE"
        /// Deleting the target deletes the referring record too, transitively.
        case deleteSelf = "DELETE_SELF"
        /// The target must exist when the referring record is saved, and cannot be deleted while
        /// the reference stands.
        case validate = "VALIDATE"
    }

    /// The target record's name.
    public var recordName: String
    /// The target's zone; `nil` means the referring record's zone.
    public var zoneID: ZoneID?
    /// What the server does about the target.
    public var action: Action

    /// Creates a reference.
    public init(recordName: String, zoneID: ZoneID? = nil, action: Action = .none) {
        self.recordName = recordName
        self.zoneID = zoneID
        self.action = action
    }
}
