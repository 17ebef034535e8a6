//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import NimbusModel
import NimbusWire

extension Database {
    /// Makes an extra invitation link to a share (a Nimbus extension): whoever opens
    /// `{serverURL}/share/{shortGUID}` (or accepts its short GUID) joins with `permission`, until
    /// the link expires, is used once (`singleUse`), or is revoked.
    ///
    /// The owner calls it on the private database, an administrator on the shared one.
    /// - Throws: `.badRequest` for a permission of `.none` or a past expiry; `.permissionFailure`
    ///   for a participant who is not an administrator.
    public func createInvitationLink(
        for share: ShareInfo,
        permission: SharePermission = .readOnly,
        expiresAt: Int64? = nil,
        singleUse: Bool = false
    ) async throws -> ShareLink {
        let request = ShareLinkRequest(
            zoneID: share.zoneID,
            shareName: share.recordName,
            permission: permission,
            expiresAt: expiresAt,
            singleUse: singleUse
        )
        let response = try await post("links/create", idempotent: false) { request.write(to: &$0) }
        guard let link = try serverAnswer({ () throws(NimbusError) in try ShareLinksResponse(json: .object(response)) }).links.first else {
            throw NimbusError(.internalError, "the server returned no link")
        }
        return link
    }

    /// A share's extra invitation links, used and revoked ones included, oldest first.
    public func invitationLinks(for share: ShareInfo) async throws -> [ShareLink] {
        let request = ShareLinkRequest(zoneID: share.zoneID, shareName: share.recordName)
        let response = try await post("links/list", idempotent: true) { request.write(to: &$0) }
        return try serverAnswer { () throws(NimbusError) in try ShareLinksResponse(json: .object(response)) }.links
    }

    /// Revokes an extra invitation link: it admits nobody more; who joined through it stays.
    public func revokeInvitationLink(shortGUID: String) async throws -> ShareLink {
        let response = try await post("links/revoke", idempotent: true) { ShortGUIDRequest(shortGUID: shortGUID).write(to: &$0) }
        guard let link = try serverAnswer({ () throws(NimbusError) in try ShareLinksResponse(json: .object(response)) }).links.first else {
            throw NimbusError(.internalError, "the server returned no link")
        }
        return link
    }

    /// Gives a share a new main short GUID: its old URL stops working, its participants stay.
    /// - Returns: the new short GUID.
    public func rotateMainLink(of share: ShareInfo) async throws -> String {
        let request = ShareLinkRequest(zoneID: share.zoneID, shareName: share.recordName)
        let response = try await post("links/rotate", idempotent: false) { request.write(to: &$0) }
        guard let shortGUID = try serverAnswer({ () throws(NimbusError) in try ShareLinksResponse(json: .object(response)) }).mainShortGUID else {
            throw NimbusError(.internalError, "the server's links/rotate response has no shortGUID")
        }
        return shortGUID
    }
}
