//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import NimbusModel
import NimbusWire

extension Container {
    /// Asks to join a share that takes requests (``ShareInfo/requestsEnabled``; a Nimbus
    /// extension), by its short GUID; its owner or an administrator answers.
    /// - Throws: `.permissionFailure` when the share takes no requests or declined the caller's;
    ///   `.badRequest` for a participant already.
    public func requestAccess(shortGUID: String) async throws -> ShareRequest {
        let response = try await perform("requests/create", in: .shared, body: ShortGUIDRequest(shortGUID: shortGUID).jsonBody, idempotent: true)
        guard let request = try serverAnswer({ () throws(NimbusError) in try ShareRequestsResponse(json: response) }).requests.first else {
            throw NimbusError(.internalError, "the server's requests/create response has no request")
        }
        return request
    }
}

extension Database {
    /// The requests to join a share, oldest first (owner: private database; administrators:
    /// shared database).
    public func accessRequests(for share: ShareInfo) async throws -> [ShareRequest] {
        let request = ShareRequestDecision(zoneID: share.zoneID, shareName: share.recordName)
        let response = try await post("requests/list", idempotent: true) { request.write(to: &$0) }
        return try serverAnswer { () throws(NimbusError) in try ShareRequestsResponse(json: .object(response)) }.requests
    }

    /// Approves a request: the requester joins as a private user with `permission`.
    public func approveAccessRequest(from userRecordName: String, to share: ShareInfo, permission: SharePermission = .readOnly)
        async throws
    {
        let request = ShareRequestDecision(zoneID: share.zoneID, shareName: share.recordName, userRecordName: userRecordName, permission: permission)
        _ = try await post("requests/approve", idempotent: false) { request.write(to: &$0) }
    }

    /// Denies a request: the requester cannot ask again.
    public func denyAccessRequest(from userRecordName: String, to share: ShareInfo) async throws {
        let request = ShareRequestDecision(zoneID: share.zoneID, shareName: share.recordName, userRecordName: userRecordName)
        _ = try await post("requests/deny", idempotent: false) { request.write(to: &$0) }
    }
}
