//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusModel
import NimbusStore

/// The `share_requests` rows of requests to join a share.
enum ShareRequestRows {
    static func requests(of shareName: String, zone zoneName: String, tenant: Tenant, on connection: any SQLConnection) async throws
        -> [ShareRequest]
    {
        try await connection.query(
            """
            SELECT user_record_name, status, requested_at FROM share_requests
            WHERE container = ? AND environment = ? AND owner = ? AND zone_name = ? AND share_name = ?
            ORDER BY requested_at, user_record_name
            """,
            SQLStore.binds(tenant, zone: zoneName) + [.text(shareName)]
        ).compactMap { row in
            ShareRequest.Status(rawValue: row.string(1)).map {
                ShareRequest(shareName: shareName, userRecordName: row.string(0), status: $0, requestedAt: row.int(2))
            }
        }
    }
}
