//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import NimbusModel

extension Container {
    /// Asks to join a share that takes requests (``ShareInfo/requestsEnabled``; a Nimbus
    /// extension), by its short GUID; its owner or an administrator answers.
    /// - Throws: `.permissionFailure` when the share takes no requests or declined the caller's;
    ///   `.badRequest` for a participant already.
    public func requestAccess(shortGUID: String) async throws -> ShareRequest {
        var writer = JSONWriter()
        writer.beginObject()
        writer.field("shortGUID", shortGUID)
        writer.endObject()
        let response = try await perform("requests/create", in: .shared, body: writer.bytes, idempotent: true)
        guard case .object(let members) = response, let request = try ShareRequestJSON.requests(members).first else {
            throw NimbusError(.internalError, "the server's requests/create response has no request")
        }
        return request
    }
}

extension Database {
    /// The requests to join a share, oldest first (owner: private database; administrators:
    /// shared database).
    public func accessRequests(for share: ShareInfo) async throws -> [ShareRequest] {
        try ShareRequestJSON.requests(try await post("requests/list", idempotent: true) { writer in Self.write(share, nil, nil, to: &writer) })
    }

    /// Approves a request: the requester joins as a private user with `permission`.
    public func approveAccessRequest(from userRecordName: String, to share: ShareInfo, permission: SharePermission = .readOnly)
        async throws
    {
        _ = try await post("requests/approve", idempotent: false) { writer in Self.write(share, userRecordName, permission, to: &writer) }
    }

    /// Denies a request: the requester cannot ask again.
    public func denyAccessRequest(from userRecordName: String, to share: ShareInfo) async throws {
        _ = try await post("requests/deny", idempotent: false) { writer in Self.write(share, userRecordName, nil, to: &writer) }
    }

    private static func write(_ share: ShareInfo, _ user: String?, _ permission: SharePermission?, to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("zoneID")
        RecordWireCoding.write(share.zoneID, to: &writer)
        writer.field("shareName", share.recordName)
        if let user { writer.field("userRecordName", user) }
        if let permission { writer.field("permission", permission.rawValue) }
        writer.endObject()
    }
}

/// The `requests` of a `requests/*` response.
enum ShareRequestJSON {
    static func requests(_ response: JSONObject) throws(NimbusError) -> [ShareRequest] {
        guard case .array(let items)? = response["requests"] else { throw NimbusError(.internalError, "the server's response has no requests") }
        return items.compactMap { item -> ShareRequest? in
            guard case .object(let members) = item, case .string(let share)? = members["shareName"],
                case .string(let user)? = members["userRecordName"], case .string(let statusName)? = members["status"],
                let status = ShareRequest.Status(rawValue: statusName), case .integer(let requestedAt)? = members["requestedAt"]
            else { return nil }
            return ShareRequest(shareName: share, userRecordName: user, status: status, requestedAt: requestedAt)
        }
    }
}
