//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusEngine
import NimbusModel
import NimbusStore
import NimbusWire

extension DatabaseEndpoints {
    /// `users/support/{grant,list,revoke}` (extension): the caller's grants of support access
    /// to the console's operators, and the reads made under them. Each answers with the
    /// caller's grants, newest first.
    func supportAccess(_ operation: DatabaseRoute.Operation) async throws(NimbusError) -> [UInt8] {
        switch operation {
        case .usersSupportGrant:
            let request = try SupportGrantRequest.parse(body)
            _ = try await support.grant(hours: request.hours, zoneName: request.zoneName, caller: access.caller)
        case .usersSupportRevoke:
            let request = try SupportRevokeRequest.parse(body)
            try await support.revoke(id: request.grantID, caller: access.caller)
        default:
            break
        }
        return encode(
            SupportAccessResponse(
                grants: try await support.grants(caller: access.caller).map { report in
                    SupportAccessResponse.Grant(
                        grantID: report.grant.id,
                        zoneName: report.grant.zoneName,
                        createdAt: report.grant.createdAt,
                        expiresAt: report.grant.expiresAt,
                        revokedAt: report.grant.revokedAt,
                        live: report.isLive,
                        reads: report.reads.map { SupportAccessResponse.Read(at: $0.at, operatorEmail: $0.operatorEmail, what: $0.what) }
                    )
                }
            )
        )
    }
}
