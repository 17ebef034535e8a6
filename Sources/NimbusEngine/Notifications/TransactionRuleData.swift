//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusModel
import NimbusStore

/// What rules read while the dispatcher handles an event, inside its transaction, limited to
/// what the recipient may read: a parent outside their shares is absent, and lookups go to
/// their own private database only.
struct TransactionRuleData: RuleDataSource {
    let transaction: any NotificationTransaction
    let tenant: Tenant
    let zoneName: String
    let recipient: NotificationPlanner.Recipient

    func parent(of record: Record) async throws -> Record? {
        guard let name = record.parentRecordName,
            let parent = try await transaction.records(named: [name], inZone: zoneName, of: tenant)[name],
            recipient.canRead(recordIn: parent.containingShare)
        else { return nil }
        return parent
    }

    func recipientRecord(recordType: String, zoneName: String, filters: [Filter]) async throws -> Record? {
        let own = Tenant(container: tenant.container, environment: tenant.environment, owner: recipient.userRecordName)
        return try await transaction.firstRecord(matching: Query(recordType: recordType, filters: filters), inZone: zoneName, of: own)
    }
}
