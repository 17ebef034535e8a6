//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import NimbusModel

/// The body of `links/create`, `links/list` and `links/rotate` (Nimbus extensions): which share,
/// and for a new link, what it admits.
public struct ShareLinkRequest: WireRequest {
    /// The share's zone (owner-qualified in the shared database).
    public var zoneID: ZoneID?
    /// The share record's name; the zone share if absent.
    public var shareName: String
    /// What those who join through a new link may do; read-only if absent.
    public var permission: SharePermission
    /// When a new link stops admitting anyone, in milliseconds since 1970.
    public var expiresAt: Int64?
    /// Whether a new link admits one person only.
    public var singleUse: Bool

    package init(json: JSONValue) throws(NimbusError) {
        let members = try json.object(at: "the body")
        zoneID = try members.zoneID()
        shareName = try members.optional("shareName")?.string(at: "shareName") ?? Share.zoneShareName
        permission =
            try members.optional("permission").map { (value) throws(NimbusError) in try SharePermission.read(value, at: "permission") } ?? .readOnly
        expiresAt = try members.optional("expiresAt").flatMap { (value) throws(NimbusError) in
            value == .null ? nil : try value.integer(at: "expiresAt")
        }
        singleUse = try members.optionalBool("singleUse") ?? false
    }
}

/// A body that names a share or a link by its short GUID, `{"shortGUID": ...}`: that of
/// `links/revoke` and of `requests/create`.
public struct ShortGUIDRequest: WireRequest {
    /// The short GUID.
    public var shortGUID: String

    package init(json: JSONValue) throws(NimbusError) {
        shortGUID = try json.object(at: "the body").required("shortGUID", at: "").string(at: "shortGUID")
    }
}

/// `{"links": [link]}`, each link `{"shortGUID", "url", "shareName", "permission", "expiresAt",
/// "singleUse", "createdBy", "createdAt", "usedBy", "revokedAt"}` (absent keys unset); or, for a
/// rotation, `{"shortGUID", "url"}` of the share's new main link.
public struct ShareLinksResponse: WireResponse {
    /// The links.
    public var links: [ShareLink]
    /// The new main short GUID, for a rotation.
    public var mainShortGUID: String?
    /// The server's URL, for each link's `url`.
    public var baseURL: String

    /// Creates the response.
    public init(links: [ShareLink] = [], mainShortGUID: String? = nil, baseURL: String) {
        self.links = links
        self.mainShortGUID = mainShortGUID
        self.baseURL = baseURL
    }

    package func write(to writer: inout JSONWriter, options: WireOptions) {
        writer.beginObject()
        if let mainShortGUID {
            writer.field("shortGUID", mainShortGUID)
            writer.field("url", "\(baseURL)/share/\(mainShortGUID)")
        } else {
            writer.key("links")
            writer.beginArray()
            for link in links {
                writer.beginObject()
                writer.field("shortGUID", link.shortGUID)
                writer.field("url", "\(baseURL)/share/\(link.shortGUID)")
                writer.field("shareName", link.shareName)
                writer.field("permission", link.permission.rawValue)
                if let expiresAt = link.expiresAt { writer.field("expiresAt", expiresAt) }
                writer.key("singleUse")
                writer.bool(link.isSingleUse)
                writer.field("createdBy", link.createdBy)
                writer.field("createdAt", link.createdAt)
                if let usedBy = link.usedBy { writer.field("usedBy", usedBy) }
                if let revokedAt = link.revokedAt { writer.field("revokedAt", revokedAt) }
                writer.endObject()
            }
            writer.endArray()
        }
        writer.endObject()
    }
}
