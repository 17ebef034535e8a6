//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import NimbusModel

extension ShareLinkRequest: WireRequestBody {
    /// A `links/create`, `links/list` or `links/rotate` request for a share (the last two read
    /// only the share).
    public init(zoneID: ZoneID?, shareName: String, permission: SharePermission = .readOnly, expiresAt: Int64? = nil, singleUse: Bool = false) {
        self.zoneID = zoneID
        self.shareName = shareName
        self.permission = permission
        self.expiresAt = expiresAt
        self.singleUse = singleUse
    }

    package func write(to writer: inout JSONWriter) {
        writer.beginObject()
        if let zoneID { writer.field("zoneID", zoneID) }
        writer.field("shareName", shareName)
        writer.field("permission", permission.rawValue)
        if let expiresAt { writer.field("expiresAt", expiresAt) }
        writer.field("singleUse", singleUse)
        writer.endObject()
    }
}

extension ShortGUIDRequest: WireRequestBody {
    /// A request naming a share or a link by its short GUID (`links/revoke`, `requests/create`).
    public init(shortGUID: String) {
        self.shortGUID = shortGUID
    }

    package func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.field("shortGUID", shortGUID)
        writer.endObject()
    }
}

extension ShareLinksResponse {
    /// Reads a `links/*` answer as ``write(to:options:)`` writes it; a link missing a member
    /// it must have is a malformed answer.
    package init(json: JSONValue) throws(NimbusError) {
        let members = try json.object(at: "the response")
        links = []
        baseURL = ""
        if let main = members.optional("shortGUID") {
            mainShortGUID = try main.string(at: "shortGUID")
            if case .string(let url)? = members["url"] { baseURL = Self.baseURL(of: url) }
            return
        }
        mainShortGUID = nil
        for (index, element) in try members.required("links", at: "").array(at: "links").enumerated() {
            let path = jsonPath("links", index)
            let link = try element.object(at: path)
            func text(_ key: String) throws(NimbusError) -> String { try link.required(key, at: path).string(at: jsonPath(path, key)) }
            func number(_ key: String) throws(NimbusError) -> Int64? {
                try link.optional(key).flatMap { (value) throws(NimbusError) in value == .null ? nil : try value.integer(at: jsonPath(path, key)) }
            }
            links.append(
                ShareLink(
                    shortGUID: try text("shortGUID"),
                    shareName: try text("shareName"),
                    permission: try SharePermission.read(try link.required("permission", at: path), at: jsonPath(path, "permission")),
                    expiresAt: try number("expiresAt"),
                    isSingleUse: try link.optionalBool("singleUse") ?? false,
                    createdBy: try text("createdBy"),
                    createdAt: try number("createdAt") ?? 0,
                    usedBy: try link.optional("usedBy").flatMap { (value) throws(NimbusError) in
                        value == .null ? nil : try value.string(at: jsonPath(path, "usedBy"))
                    },
                    revokedAt: try number("revokedAt")
                )
            )
            if baseURL.isEmpty, case .string(let url)? = link["url"] { baseURL = Self.baseURL(of: url) }
        }
    }

    /// The server's URL, from a link's: what comes before `/share/`.
    private static func baseURL(of url: String) -> String {
        guard let range = url.ranges(of: "/share/").last else { return "" }
        return String(url[..<range.lowerBound])
    }
}
