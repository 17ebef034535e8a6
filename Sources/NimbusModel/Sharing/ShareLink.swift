//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

/// An extra invitation link to a share (a Nimbus extension): whoever opens it may join as a
/// participant with its permission, until it expires, is used (a single-use link), or is
/// revoked. Revoking a link does not remove those who joined through it.
public struct ShareLink: Sendable, Hashable {
    /// The link's short GUID: `/share/{shortGUID}` and `records/accept` take it as they take
    /// the share's own.
    public var shortGUID: String
    /// The share it opens.
    public var shareName: String
    /// What those who join through it may do: `.readOnly` or `.readWrite`.
    public var permission: SharePermission
    /// When it stops admitting anyone, in milliseconds since 1970; `nil`: never.
    public var expiresAt: Int64?
    /// Whether it admits one person only.
    public var isSingleUse: Bool
    /// Who made it.
    public var createdBy: String
    /// When, in milliseconds since 1970.
    public var createdAt: Int64
    /// Who joined through a single-use link.
    public var usedBy: String?
    /// When it was revoked, in milliseconds since 1970.
    public var revokedAt: Int64?

    /// Creates a link.
    public init(
        shortGUID: String,
        shareName: String,
        permission: SharePermission,
        expiresAt: Int64?,
        isSingleUse: Bool,
        createdBy: String,
        createdAt: Int64,
        usedBy: String? = nil,
        revokedAt: Int64? = nil
    ) {
        self.shortGUID = shortGUID
        self.shareName = shareName
        self.permission = permission
        self.expiresAt = expiresAt
        self.isSingleUse = isSingleUse
        self.createdBy = createdBy
        self.createdAt = createdAt
        self.usedBy = usedBy
        self.revokedAt = revokedAt
    }

    /// Why the link does not admit `user` at `now`; `nil` when it does. Its holder may be told:
    /// they have the link.
    public func refusal(for user: String, at now: Int64) -> String? {
        if revokedAt != nil { return "this invitation link was revoked; ask the share's owner for a new one" }
        if let expiresAt, now >= expiresAt { return "this invitation link expired; ask the share's owner for a new one" }
        if isSingleUse, let usedBy, usedBy != user { return "this invitation link was already used; it admits one person" }
        return nil
    }
}
