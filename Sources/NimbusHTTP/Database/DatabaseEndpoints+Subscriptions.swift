//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusEngine
import NimbusModel
import NimbusWire

extension DatabaseEndpoints {
    /// `subscriptions/list` (GET).
    func listSubscriptions() async throws(NimbusError) -> [UInt8] {
        let found = try await database.subscriptions(access: access)
        return encode(SubscriptionsResponse(subscriptions: found.map { .subscription($0) }))
    }

    /// `subscriptions/lookup`.
    func lookUpSubscriptions() async throws(NimbusError) -> [UInt8] {
        let request = try SubscriptionsLookupRequest.parse(body)
        let results = try await database.lookupSubscriptions(request.subscriptionIDs, access: access)
        return encode(
            SubscriptionsResponse(
                subscriptions: zip(request.subscriptionIDs, results).map { id, result in
                    switch result {
                    case .success(let subscription): .subscription(subscription)
                    case .failure(let error): .error(subscriptionError(error, id: id))
                    }
                }
            )
        )
    }

    /// `subscriptions/modify`.
    func modifySubscriptions() async throws(NimbusError) -> [UInt8] {
        let request = try SubscriptionsModifyRequest.parse(body)
        let operations: [SubscriptionOperation] = request.operations.map { operation in
            switch operation.operationType {
            case "create": .create(operation.subscription)
            case "update": .update(operation.subscription)
            default: .delete(operation.subscription.subscriptionID)
            }
        }
        let results = try await database.modifySubscriptions(operations, access: access)
        return encode(
            SubscriptionsResponse(
                subscriptions: results.map { result in
                    switch result {
                    case .saved(let subscription): .subscription(subscription)
                    case .deleted(let id): .deleted(id)
                    case .failed(let id, let error): .error(subscriptionError(error, id: id))
                    }
                }
            )
        )
    }

    /// `notifications/explain` (extension): the rules' dry run.
    func explainNotification() async throws(NimbusError) -> [UInt8] {
        let request = try NotificationExplainRequest.parse(body)
        let explanation = try await database.explainNotification(
            subscriptionID: request.subscriptionID,
            recordName: request.recordName,
            inZone: request.zoneID,
            reason: request.reason,
            writer: request.writer,
            access: access
        )
        return encode(
            NotificationExplainResponse(
                subscriptionID: explanation.subscriptionID,
                recordName: explanation.recordName,
                reason: explanation.reason,
                fires: explanation.fires,
                decision: explanation.decision,
                rule: explanation.rule,
                steps: explanation.steps
            )
        )
    }

    private func subscriptionError(_ error: NimbusError, id: String) -> WireError {
        var wire = itemError(error)
        wire.subscriptionID = id.isEmpty ? nil : id
        return wire
    }
}
