//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

package import NimbusModel

/// The body of `users/support/grant` (Nimbus extension): `{"hours"?: 1...168, "zoneName"?: "..."}`.
/// Without a zone, the grant covers all the caller's data.
public struct SupportGrantRequest: WireRequest {
    /// How long the grant lasts; the server's default (a day) if absent.
    public var hours: Int?
    /// The one zone of the caller's private database it covers.
    public var zoneName: String?

    package init(json: JSONValue) throws(NimbusError) {
        let members = try json.object(at: "the body")
        if let hours = try members.optional("hours")?.integer(at: "hours") {
            guard let small = Int(exactly: hours) else { throw .badRequest("hours must be from 1 to 168") }
            self.hours = small
        }
        zoneName = try members.optional("zoneName")?.string(at: "zoneName")
    }
}

/// The body of `users/support/revoke` (Nimbus extension): `{"grantID": "..."}`.
public struct SupportRevokeRequest: WireRequest {
    /// The grant to end.
    public var grantID: String

    package init(json: JSONValue) throws(NimbusError) {
        grantID = try json.object(at: "the body").required("grantID", at: "").string(at: "grantID")
    }
}

/// The answer of `users/support/grant`, `users/support/list` and `users/support/revoke`:
/// `{"grants": [{"grantID", "zoneName"?, "createdAt", "expiresAt", "revokedAt"?, "live",
/// "reads": [{"at", "operator", "what"}]}]}`, newest first.
public struct SupportAccessResponse: WireResponse {
    /// One read under a grant: when, by which operator (their address), what.
    public struct Read: Sendable, Hashable {
        public var at: Int64
        public var operatorEmail: String
        public var what: String

        /// Creates a read's entry.
        public init(at: Int64, operatorEmail: String, what: String) {
            self.at = at
            self.operatorEmail = operatorEmail
            self.what = what
        }
    }

    /// One grant as the user sees it.
    public struct Grant: Sendable, Hashable {
        public var grantID: String
        public var zoneName: String?
        public var createdAt: Int64
        public var expiresAt: Int64
        public var revokedAt: Int64?
        public var live: Bool
        public var reads: [Read]

        /// Creates a grant's entry.
        public init(grantID: String, zoneName: String?, createdAt: Int64, expiresAt: Int64, revokedAt: Int64?, live: Bool, reads: [Read]) {
            self.grantID = grantID
            self.zoneName = zoneName
            self.createdAt = createdAt
            self.expiresAt = expiresAt
            self.revokedAt = revokedAt
            self.live = live
            self.reads = reads
        }
    }

    /// The grants.
    public var grants: [Grant]

    /// Creates the response.
    public init(grants: [Grant]) { self.grants = grants }

    package func write(to writer: inout JSONWriter, options: WireOptions) {
        writer.beginObject()
        writer.key("grants")
        writer.beginArray()
        for grant in grants {
            writer.beginObject()
            writer.field("grantID", grant.grantID)
            if let zoneName = grant.zoneName { writer.field("zoneName", zoneName) }
            writer.field("createdAt", grant.createdAt)
            writer.field("expiresAt", grant.expiresAt)
            if let revokedAt = grant.revokedAt { writer.field("revokedAt", revokedAt) }
            writer.field("live", grant.live)
            writer.key("reads")
            writer.beginArray()
            for read in grant.reads {
                writer.beginObject()
                writer.field("at", read.at)
                writer.field("operator", read.operatorEmail)
                writer.field("what", read.what)
                writer.endObject()
            }
            writer.endArray()
            writer.endObject()
        }
        writer.endArray()
        writer.endObject()
    }
}
