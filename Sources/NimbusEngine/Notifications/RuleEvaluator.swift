//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusModel

/// What a rule may read beyond the changed record, always as the recipient.
protocol RuleDataSource {
    /// The parent of `record`, if it has one the recipient may read.
    func parent(of record: Record) async throws -> Record?
    /// The first record of the recipient's private database of this type in this zone that
    /// matches every filter.
    func recipientRecord(recordType: String, zoneName: String, filters: [Filter]) async throws -> Record?
}

/// Evaluates a subscription's rules for one recipient and one change.
struct RuleEvaluator {
    /// The decision for a change, the rule that made it, and why, step by step.
    struct Outcome: Sendable {
        var decision: NotificationRule.Decision
        var rule: String?
        var steps: [String]
    }

    let recipient: String
    let writer: String
    let data: any RuleDataSource
    private var parents: [String: Record?] = [:]

    init(recipient: String, writer: String, data: any RuleDataSource) {
        self.recipient = recipient
        self.writer = writer
        self.data = data
    }

    /// The first rule that applies decides; without one the change is visible.
    mutating func decide(
        _ rules: [NotificationRule],
        recordType: String,
        reason: Subscription.FiresOn,
        record: Record?
    ) async throws -> Outcome {
        var steps: [String] = []
        for rule in rules {
            if let types = rule.recordTypes, !types.contains(recordType) {
                steps.append("rule '\(rule.name)' is not for \(recordType) records")
                continue
            }
            if let reasons = rule.reasons, !reasons.contains(reason) {
                steps.append("rule '\(rule.name)' is not for \(reason.rawValue)")
                continue
            }
            if let condition = rule.condition {
                guard try await holds(condition, record: record) else {
                    steps.append("rule '\(rule.name)': its condition does not hold")
                    continue
                }
            }
            steps.append("rule '\(rule.name)' applies: \(rule.decision.rawValue)")
            return Outcome(decision: rule.decision, rule: rule.name, steps: steps)
        }
        steps.append("no rule applies: visible")
        return Outcome(decision: .visible, rule: nil, steps: steps)
    }

    // MARK: - Private

    private mutating func holds(_ condition: RuleCondition, record: Record?) async throws -> Bool {
        switch condition {
        case .all(let conditions):
            for condition in conditions where !(try await holds(condition, record: record)) { return false }
            return true
        case .any(let conditions):
            for condition in conditions where try await holds(condition, record: record) { return true }
            return false
        case .not(let condition):
            return !(try await holds(condition, record: record))
        case .recipientIsWriter:
            return recipient == writer
        case .recipientIs(let value):
            guard let resolved = try await resolve(value, record: record) else { return false }
            switch resolved {
            case .string(let name): return name == recipient
            case .reference(let reference): return reference.recordName == recipient
            default: return false
            }
        case .field(let subject, let filter):
            guard let record else { return false }
            let target = subject == .record ? record : try await parent(of: record)
            guard let target, let value = try await resolve(filter.value, record: record) else { return false }
            return FilterEvaluator.matches(target, Filter(filter.fieldName, filter.comparator, value))
        case .recipientHas(let recordType, let zoneName, let filters):
            var resolved: [Filter] = []
            for filter in filters {
                guard let value = try await resolve(filter.value, record: record) else { return false }
                resolved.append(Filter(filter.fieldName, filter.comparator, value))
            }
            return try await data.recipientRecord(recordType: recordType, zoneName: zoneName, filters: resolved) != nil
        }
    }

    private mutating func parent(of record: Record) async throws -> Record? {
        guard let name = record.parentRecordName else { return nil }
        if let cached = parents[name] { return cached }
        let found = try await data.parent(of: record)
        parents[name] = found
        return found
    }

    /// A value with its variables replaced; `nil` when a variable names nothing.
    private mutating func resolve(_ value: FieldValue, record: Record?) async throws -> FieldValue? {
        switch value {
        case .string(let text) where text.hasPrefix("$"):
            guard let variable = RuleVariable(text) else { return nil }
            switch variable {
            case .recipient: return .string(recipient)
            case .writer: return .string(writer)
            case .record(let name): return record.flatMap { Self.value(of: name, in: $0) }
            case .parent(let name):
                guard let record, let parent = try await parent(of: record) else { return nil }
                return Self.value(of: name, in: parent)
            }
        case .list(let type, let elements):
            var resolved: [FieldValue] = []
            for element in elements {
                guard let value = try await resolve(element, record: record) else { return nil }
                resolved.append(value)
            }
            return .list(elementType: type, resolved)
        default:
            return value
        }
    }

    private static func value(of name: String, in record: Record) -> FieldValue? {
        switch name {
        case "recordName": .string(record.recordID.recordName)
        case "parent": record.parentRecordName.map(FieldValue.string)
        case "___createTime": .timestamp(record.created.timestamp)
        case "___modTime": .timestamp(record.modified.timestamp)
        case "___createdBy": .string(record.created.userRecordName)
        case "___modifiedBy": .string(record.modified.userRecordName)
        default: record.fields[NameKey(name)]
        }
    }
}
