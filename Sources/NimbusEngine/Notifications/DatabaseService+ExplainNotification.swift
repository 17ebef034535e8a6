//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import NimbusModel
import NimbusStore

/// The answer of the notification dry run: would this change notify me, and why.
public struct NotificationExplanation: Sendable {
    /// The subscription asked about.
    public var subscriptionID: String
    /// The record asked about.
    public var recordName: String
    /// The kind of change assumed.
    public var reason: Subscription.FiresOn
    /// Whether the subscription fires on the change at all (zone, record type, filters, firesOn).
    public var fires: Bool
    /// What the recipient would get: `none` when the subscription does not fire.
    public var decision: NotificationRule.Decision
    /// The rule that decided, if one did.
    public var rule: String?
    /// How the decision was reached, one line per step.
    public var steps: [String]
}

extension DatabaseService {
    /// Evaluates one of the caller's subscriptions, with its rules, as if `recordName` had just
    /// changed: the rules' dry run. The caller is the recipient, so it reads only what they may
    /// read; a record they cannot read is `NOT_FOUND`, as everywhere.
    /// - Parameters:
    ///   - reason: The kind of change; `nil` assumes an update, or a creation for a record never
    ///     modified since it was created.
    ///   - writer: Who made the change; `nil` assumes the record's last modifier.
    public func explainNotification(
        subscriptionID: String,
        recordName: String,
        inZone zoneID: ZoneID?,
        reason: Subscription.FiresOn?,
        writer: String?,
        access: DatabaseAccess
    ) async throws(NimbusError) -> NotificationExplanation {
        let subscriber = try subscriber(access)
        guard let subscription = try await store({ try await subscriptions.subscriptions(withIDs: [subscriptionID], of: subscriber) })[subscriptionID]
        else { throw Self.subscriptionNotFound }
        let record = try await lookupRecords(named: [recordName], inZone: zoneID, access: access)[0].get()
        let target = try await target(zone: zoneID, access: access)
        let reason = reason ?? (record.created.timestamp == record.modified.timestamp ? .create : .update)
        let change = NotificationPlanner.VisibleChange(recordName: recordName, recordType: record.recordType, reason: reason, record: record)
        let zone = ZoneID(zoneName: target.zoneName, ownerRecordName: target.tenant.owner)
        var explanation = NotificationExplanation(
            subscriptionID: subscriptionID,
            recordName: recordName,
            reason: reason,
            fires: false,
            decision: .none,
            rule: nil,
            steps: []
        )
        guard !NotificationPlanner.matches(of: subscription, in: [change], zoneID: zone).isEmpty else {
            explanation.steps = ["the \(subscription.kind.typeName) subscription does not fire on this change"]
            return explanation
        }
        explanation.fires = true
        var evaluator = RuleEvaluator(
            recipient: subscriber.userRecordName,
            writer: writer ?? record.modified.userRecordName,
            data: ServiceRuleData(database: self, access: access, zoneID: zoneID)
        )
        do {
            let outcome = try await evaluator.decide(subscription.rules, recordType: record.recordType, reason: reason, record: record)
            explanation.decision = outcome.decision
            explanation.rule = outcome.rule
            explanation.steps = ["the \(subscription.kind.typeName) subscription fires on this change"] + outcome.steps
        } catch let error as NimbusError {
            throw error
        } catch {
            throw NimbusError(.internalError, "the rules could not be evaluated")
        }
        return explanation
    }
}

/// What rules read in a dry run: through the caller's own access, like any request of theirs.
private struct ServiceRuleData: RuleDataSource {
    let database: DatabaseService
    let access: DatabaseAccess
    let zoneID: ZoneID?

    func parent(of record: Record) async throws -> Record? {
        guard let name = record.parentRecordName else { return nil }
        return try? await database.lookupRecords(named: [name], inZone: zoneID, access: access)[0].get()
    }

    func recipientRecord(recordType: String, zoneName: String, filters: [Filter]) async throws -> Record? {
        var own = access
        own.scope = .private
        let zone = ZoneID(zoneName: zoneName, ownerRecordName: "")
        let result: Result<QueryResult, NimbusError>
        do {
            let found = try await database.queryRecords(
                Query(recordType: recordType, filters: filters),
                inZone: zone,
                resultsLimit: 1,
                continuationMarker: nil,
                access: own
            )
            result = .success(found)
        } catch {
            result = .failure(error)
        }
        switch result {
        case .success(let found):
            return found.records.first
        case .failure(let error) where error.code == .zoneNotFound || error.code == .badRequest:
            // A zone or a field the recipient never created: they have no such record.
            return nil
        case .failure(let error):
            throw error
        }
    }
}
