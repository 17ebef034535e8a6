//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import NimbusModel

/// One share named in `records/resolve` or `records/accept`.
public struct ShareLookup: Sendable, Hashable {
    /// The share's short GUID (the last part of its URL).
    public var shortGUID: String
    /// Whether to return the root record too.
    public var shouldFetchRootRecord: Bool
    /// The root record's fields to return; `nil`: all.
    public var rootRecordDesiredKeys: [String]?

    /// Creates a lookup.
    public init(shortGUID: String, shouldFetchRootRecord: Bool = false, rootRecordDesiredKeys: [String]? = nil) {
        self.shortGUID = shortGUID
        self.shouldFetchRootRecord = shouldFetchRootRecord
        self.rootRecordDesiredKeys = rootRecordDesiredKeys
    }
}

/// What `records/resolve` and `records/accept` say about a share to the user who opened it.
public struct ShareMetadata: Sendable, Hashable {
    /// The short GUID asked for.
    public var shortGUID: String
    /// The container the share is in.
    public var container: String
    /// The environment the share is in.
    public var environment: Environment
    /// The owner's zone that holds the share.
    public var zoneID: ZoneID
    /// The share record, with the share as this user may see it.
    public var share: Record
    /// The shared root, for a record share.
    public var rootRecordName: String?
    /// The root record, when asked for.
    public var rootRecord: Record?
    /// The user's role: `nil` for someone who may join a public share but has not.
    public var participantRole: ShareRole?
    /// The user's acceptance: `nil` (`UNKNOWN`) for someone who has not joined.
    public var participantStatus: ShareAcceptance?
    /// What the user may, or would after joining, do with the shared records.
    public var participantPermission: SharePermission
    /// The owner.
    public var ownerIdentity: UserIdentity?
}
