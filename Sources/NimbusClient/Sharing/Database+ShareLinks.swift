//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import NimbusModel

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
        let response = try await post("links/create", idempotent: false) { writer in
            Self.writeShare(share, to: &writer) { writer in
                writer.field("permission", permission.rawValue)
                if let expiresAt { writer.field("expiresAt", expiresAt) }
                writer.key("singleUse")
                writer.bool(singleUse)
            }
        }
        guard let link = try ShareJSON.links(response).first else { throw NimbusError(.internalError, "the server returned no link") }
        return link
    }

    /// A share's extra invitation links, used and revoked ones included, oldest first.
    public func invitationLinks(for share: ShareInfo) async throws -> [ShareLink] {
        try ShareJSON.links(try await post("links/list", idempotent: true) { writer in Self.writeShare(share, to: &writer) { _ in } })
    }

    /// Revokes an extra invitation link: it admits nobody more; who joined through it stays.
    public func revokeInvitationLink(shortGUID: String) async throws -> ShareLink {
        let response = try await post("links/revoke", idempotent: true) { writer in
            writer.beginObject()
            writer.field("shortGUID", shortGUID)
            writer.endObject()
        }
        guard let link = try ShareJSON.links(response).first else { throw NimbusError(.internalError, "the server returned no link") }
        return link
    }

    /// Gives a share a new main short GUID: its old URL stops working, its participants stay.
    /// - Returns: the new short GUID.
    public func rotateMainLink(of share: ShareInfo) async throws -> String {
        let response = try await post("links/rotate", idempotent: false) { writer in Self.writeShare(share, to: &writer) { _ in } }
        guard case .string(let shortGUID)? = response["shortGUID"] else {
            throw NimbusError(.internalError, "the server's links/rotate response has no shortGUID")
        }
        return shortGUID
    }

    private static func writeShare(_ share: ShareInfo, to writer: inout JSONWriter, _ more: (inout JSONWriter) -> Void) {
        writer.beginObject()
        writer.key("zoneID")
        RecordWireCoding.write(share.zoneID, to: &writer)
        writer.field("shareName", share.recordName)
        more(&writer)
        writer.endObject()
    }
}
