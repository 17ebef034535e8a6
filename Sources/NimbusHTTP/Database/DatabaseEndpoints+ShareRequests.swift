//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusEngine
import NimbusModel
import NimbusWire

extension DatabaseEndpoints {
    /// `requests/create|list|approve|deny` (Nimbus extensions): asking to join a share, and the
    /// owner's or administrators' answer.
    func shareRequests(_ operation: DatabaseRoute.Operation) async throws(NimbusError) -> [UInt8] {
        if operation == .requestsCreate {
            let request = try ShortGUIDRequest.parse(body)
            return encode(ShareRequestsResponse([try await database.requestAccess(shortGUID: request.shortGUID, access: access)]))
        }
        let decision = try ShareRequestDecision.parse(body)
        if operation == .requestsList {
            return encode(
                ShareRequestsResponse(try await database.shareRequests(shareName: decision.shareName, inZone: decision.zoneID, access: access))
            )
        }
        guard let requester = decision.userRecordName else { throw .badRequest("userRecordName is required: whose request") }
        if operation == .requestsApprove {
            try await database.approveShareRequest(
                shareName: decision.shareName,
                inZone: decision.zoneID,
                from: requester,
                permission: decision.permission,
                access: access
            )
        } else {
            try await database.denyShareRequest(shareName: decision.shareName, inZone: decision.zoneID, from: requester, access: access)
        }
        return encode(ShareRequestsResponse(try await database.shareRequests(shareName: decision.shareName, inZone: decision.zoneID, access: access)))
    }
}
