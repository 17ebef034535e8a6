//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import NimbusModel

/// The body of `requests/list|approve|deny` (Nimbus extensions): which share, whose request,
/// and for an approval the permission to grant.
public struct ShareRequestDecision: WireRequest {
    /// The share's zone (owner-qualified in the shared database).
    public var zoneID: ZoneID?
    /// The share record's name; the zone share if absent.
    public var shareName: String
    /// Whose request (absent for `requests/list`).
    public var userRecordName: String?
    /// What an approved requester may do; read-only if absent.
    public var permission: SharePermission

    package init(json: JSONValue) throws(NimbusError) {
        let members = try json.object(at: "the body")
        zoneID = try members.zoneID()
        shareName = try members.optional("shareName")?.string(at: "shareName") ?? Share.zoneShareName
        userRecordName = try members.optional("userRecordName")?.string(at: "userRecordName")
        permission =
            try members.optional("permission").map { (value) throws(NimbusError) in try SharePermission.read(value, at: "permission") } ?? .readOnly
    }
}

/// `{"requests": [{"shareName", "userRecordName", "status", "requestedAt"}]}`.
public struct ShareRequestsResponse: WireResponse {
    /// The requests.
    public var requests: [ShareRequest]

    /// Creates the response.
    public init(_ requests: [ShareRequest]) {
        self.requests = requests
    }

    package func write(to writer: inout JSONWriter, options: WireOptions) {
        writer.beginObject()
        writer.key("requests")
        writer.beginArray()
        for request in requests {
            writer.beginObject()
            writer.field("shareName", request.shareName)
            writer.field("userRecordName", request.userRecordName)
            writer.field("status", request.status.rawValue)
            writer.field("requestedAt", request.requestedAt)
            writer.endObject()
        }
        writer.endArray()
        writer.endObject()
    }
}
