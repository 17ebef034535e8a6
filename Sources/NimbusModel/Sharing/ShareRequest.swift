//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

/// A signed-in user's request to join a share that takes requests (a Nimbus extension); its
/// owner or administrators approve or deny it.
public struct ShareRequest: Sendable, Hashable {
    /// Where the request stands.
    public enum Status: String, Sendable, Hashable {
        /// Waiting for the owner or an administrator.
        case pending = "PENDING"
        /// Declined: asking again is refused.
        case denied = "DENIED"
    }

    /// The share asked for.
    public var shareName: String
    /// Who asks.
    public var userRecordName: String
    /// Where it stands.
    public var status: Status
    /// When it was made, in milliseconds since 1970.
    public var requestedAt: Int64

    /// Creates a request.
    public init(shareName: String, userRecordName: String, status: Status, requestedAt: Int64) {
        self.shareName = shareName
        self.userRecordName = userRecordName
        self.status = status
        self.requestedAt = requestedAt
    }
}
