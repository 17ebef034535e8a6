//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

/// Rules as JSON, in a subscription's `rules` (Nimbus extension):
///
/// ```json
/// {"name": "muted", "recordTypes": ["Message"], "reasons": ["create"],
///  "when": {"all": [{"recipientHas": {"recordType": "Mute", "filterBy": [...]}},
///                   {"not": {"field": {"of": "record", "fieldName": "mentions",
///                            "comparator": "LIST_CONTAINS", "fieldValue": {"value": "$recipient"}}}}]},
///  "then": "none"}
/// ```
///
/// Reading validates everything a rule could get wrong, with the path of the problem in the
/// reason: unknown keys and decisions, variables, comparators, nesting and size.
extension NotificationRule {
    /// The most rules one subscription may carry.
    package static let maximumRules = 20
    /// The deepest a condition may nest.
    package static let maximumDepth = 8
    /// The most `recipientHas` lookups one rule may make: each is a query per recipient.
    package static let maximumLookups = 4
    /// Comparators a `recipientHas` filter may use: those the store's queries run.
    package static let lookupComparators: Set<Filter.Comparator> = [
        .equals, .notEquals, .lessThan, .lessThanOrEquals, .greaterThan, .greaterThanOrEquals, .in, .notIn, .beginsWith,
        .notBeginsWith, .containsAnyTokens, .containsAllTokens,
    ]
    /// The system names a `$record.` or `$parent.` variable may use beside field names.
    package static let variableNames: Set<String> = [
        "recordName", "parent", "___createTime", "___modTime", "___createdBy", "___modifiedBy",
    ]

    /// Reads a subscription's `rules` array.
    package static func readList(_ json: JSONValue, at path: @autoclosure () -> String) throws(NimbusError) -> [NotificationRule] {
        let elements = try json.array(at: path())
        guard elements.count <= maximumRules else {
            throw .badRequest("\(path()) has \(elements.count) rules; a subscription may have at most \(maximumRules)")
        }
        var rules: [NotificationRule] = []
        var names: Set<String> = []
        for (index, element) in elements.enumerated() {
            let rule = try read(element, at: jsonPath(path(), index))
            guard names.insert(rule.name).inserted else { throw .badRequest("\(jsonPath(path(), index)).name '\(rule.name)' is used twice") }
            rules.append(rule)
        }
        return rules
    }

    static func read(_ json: JSONValue, at path: @autoclosure () -> String) throws(NimbusError) -> NotificationRule {
        let members = try json.object(at: path())
        for key in members.keys where !["name", "recordTypes", "reasons", "when", "then"].contains(key) {
            throw .badRequest("unknown key '\(key)' in \(path()): a rule has name, recordTypes, reasons, when and then")
        }
        let name = try members.required("name", at: path()).string(at: jsonPath(path(), "name"))
        guard !name.isEmpty, name.utf8.count <= 100 else { throw .badRequest("\(jsonPath(path(), "name")) must be 1 to 100 bytes") }
        let thenPath = jsonPath(path(), "then")
        let then = try members.required("then", at: path()).string(at: thenPath)
        guard let decision = Decision(rawValue: then.lowercased()) else {
            throw .badRequest("unknown decision '\(then)' at \(thenPath): expected none, silent or visible")
        }
        var recordTypes: Set<String>?
        if let list = members.optional("recordTypes") {
            let listPath = jsonPath(path(), "recordTypes")
            recordTypes = Set(
                try list.array(at: listPath).enumerated().map { (index, element) throws(NimbusError) in
                    try element.string(at: jsonPath(listPath, index))
                }
            )
        }
        var reasons: Set<Subscription.FiresOn>?
        if let list = members.optional("reasons") {
            let listPath = jsonPath(path(), "reasons")
            var parsed: Set<Subscription.FiresOn> = []
            for (index, element) in try list.array(at: listPath).enumerated() {
                let text = try element.string(at: jsonPath(listPath, index))
                guard let reason = Subscription.FiresOn(rawValue: text.lowercased()) else {
                    throw .badRequest("unknown reason '\(text)' at \(jsonPath(listPath, index)): expected create, update or delete")
                }
                parsed.insert(reason)
            }
            reasons = parsed
        }
        var lookups = 0
        let condition = try members.optional("when").map { (json) throws(NimbusError) in
            try RuleCondition.read(json, at: jsonPath(path(), "when"), depth: 1, lookups: &lookups)
        }
        return NotificationRule(name: name, recordTypes: recordTypes, reasons: reasons, when: condition, then: decision)
    }

    package func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.field("name", name)
        if let recordTypes {
            writer.key("recordTypes")
            writer.beginArray()
            for type in recordTypes.sorted() { writer.string(type) }
            writer.endArray()
        }
        if let reasons {
            writer.key("reasons")
            writer.beginArray()
            for reason in reasons.sorted() { writer.string(reason.rawValue) }
            writer.endArray()
        }
        if let condition {
            writer.key("when")
            condition.write(to: &writer)
        }
        writer.field("then", decision.rawValue)
        writer.endObject()
    }
}

extension RuleCondition {
    static func read(_ json: JSONValue, at path: @autoclosure () -> String, depth: Int, lookups: inout Int) throws(NimbusError) -> RuleCondition {
        guard depth <= NotificationRule.maximumDepth else {
            throw .badRequest("\(path()) nests deeper than \(NotificationRule.maximumDepth) levels")
        }
        let members = try json.object(at: path())
        guard members.count == 1, let (key, value) = members.first else {
            throw .badRequest("\(path()) must have exactly one key: all, any, not, recipientIsWriter, recipientIs, field or recipientHas")
        }
        let keyPath = jsonPath(path(), key)
        switch key {
        case "all", "any":
            var conditions: [RuleCondition] = []
            for (index, element) in try value.array(at: keyPath).enumerated() {
                conditions.append(try read(element, at: jsonPath(keyPath, index), depth: depth + 1, lookups: &lookups))
            }
            guard !conditions.isEmpty else { throw .badRequest("\(keyPath) is empty") }
            guard conditions.count <= 50 else { throw .badRequest("\(keyPath) has \(conditions.count) conditions; at most 50 are allowed") }
            return key == "all" ? .all(conditions) : .any(conditions)
        case "not":
            return .not(try read(value, at: keyPath, depth: depth + 1, lookups: &lookups))
        case "recipientIsWriter":
            guard try value.bool(at: keyPath) else {
                throw .badRequest("\(keyPath) must be true; write {\"not\": {\"recipientIsWriter\": true}} for the opposite")
            }
            return .recipientIsWriter
        case "recipientIs":
            let text = try value.string(at: keyPath)
            try Self.checkVariables(in: .string(text), at: keyPath)
            return .recipientIs(.string(text))
        case "field":
            let fieldMembers = try value.object(at: keyPath)
            let ofPath = jsonPath(keyPath, "of")
            let ofText = try fieldMembers.optional("of")?.string(at: ofPath) ?? "record"
            guard let subject = RuleSubject(rawValue: ofText) else {
                throw .badRequest("unknown subject '\(ofText)' at \(ofPath): expected record or parent")
            }
            let filter = try Filter.read(value, at: keyPath)
            guard filter.comparator != .near else { throw .badRequest("\(keyPath): NEAR is not supported in rules") }
            try Self.checkVariables(in: filter.value, at: jsonPath(keyPath, "fieldValue"))
            return .field(subject, filter)
        case "recipientHas":
            lookups += 1
            guard lookups <= NotificationRule.maximumLookups else {
                throw .badRequest("\(keyPath): a rule may look up at most \(NotificationRule.maximumLookups) of the recipient's records")
            }
            let lookup = try value.object(at: keyPath)
            let recordType = try lookup.required("recordType", at: keyPath).string(at: jsonPath(keyPath, "recordType"))
            let zoneName = try lookup.optional("zoneName")?.string(at: jsonPath(keyPath, "zoneName")) ?? ZoneID.defaultZoneName
            var filters: [Filter] = []
            let filtersPath = jsonPath(keyPath, "filterBy")
            for (index, element) in try (lookup.optional("filterBy")?.array(at: filtersPath) ?? []).enumerated() {
                let filterPath = jsonPath(filtersPath, index)
                let filter = try Filter.read(element, at: filterPath)
                guard NotificationRule.lookupComparators.contains(filter.comparator) else {
                    throw .badRequest("\(filterPath): comparator \(filter.comparator.rawValue) is not supported in recipientHas lookups")
                }
                try Self.checkVariables(in: filter.value, at: jsonPath(filterPath, "fieldValue"))
                filters.append(filter)
            }
            return .recipientHas(recordType: recordType, zoneName: zoneName, filters: filters)
        default:
            throw .badRequest(
                "unknown condition '\(key)' at \(path()): expected all, any, not, recipientIsWriter, recipientIs, field or recipientHas"
            )
        }
    }

    /// Every `$` string must be a variable the evaluator knows.
    private static func checkVariables(in value: FieldValue, at path: @autoclosure () -> String) throws(NimbusError) {
        switch value {
        case .string(let text) where text.hasPrefix("$"):
            guard RuleVariable(text) != nil else {
                throw .badRequest(
                    "unknown variable '\(text)' at \(path()): use $recipient, $writer, $record.NAME or $parent.NAME"
                )
            }
        case .list(_, let elements):
            for element in elements { try checkVariables(in: element, at: path()) }
        default:
            break
        }
    }

    func write(to writer: inout JSONWriter) {
        writer.beginObject()
        switch self {
        case .all(let conditions), .any(let conditions):
            if case .all = self { writer.key("all") } else { writer.key("any") }
            writer.beginArray()
            for condition in conditions { condition.write(to: &writer) }
            writer.endArray()
        case .not(let condition):
            writer.key("not")
            condition.write(to: &writer)
        case .recipientIsWriter:
            writer.key("recipientIsWriter")
            writer.bool(true)
        case .recipientIs(let value):
            writer.key("recipientIs")
            if case .string(let text) = value { writer.string(text) } else { writer.null() }
        case .field(let subject, let filter):
            writer.key("field")
            writer.beginObject()
            writer.field("of", subject.rawValue)
            writer.field("fieldName", filter.fieldName)
            writer.field("comparator", filter.comparator.rawValue)
            writer.key("fieldValue")
            filter.value.write(to: &writer)
            writer.endObject()
        case .recipientHas(let recordType, let zoneName, let filters):
            writer.key("recipientHas")
            writer.beginObject()
            writer.field("recordType", recordType)
            writer.field("zoneName", zoneName)
            writer.key("filterBy")
            writer.beginArray()
            for filter in filters { filter.write(to: &writer) }
            writer.endArray()
            writer.endObject()
        }
        writer.endObject()
    }
}

/// A variable in a rule value: `$recipient`, `$writer`, `$record.NAME`, `$parent.NAME`.
package enum RuleVariable: Sendable, Hashable {
    case recipient
    case writer
    case record(String)
    case parent(String)

    package init?(_ text: String) {
        switch text {
        case "$recipient": self = .recipient
        case "$writer": self = .writer
        default:
            let parts = text.split(separator: ".", maxSplits: 1)
            guard parts.count == 2, FieldRulesNames.isValid(String(parts[1])) else { return nil }
            switch parts[0] {
            case "$record": self = .record(String(parts[1]))
            case "$parent": self = .parent(String(parts[1]))
            default: return nil
            }
        }
    }
}

/// Field names a variable may name: a system name or an ordinary field name.
enum FieldRulesNames {
    static func isValid(_ name: String) -> Bool {
        if NotificationRule.variableNames.contains(name) { return true }
        guard let first = name.unicodeScalars.first, first.properties.isAlphabetic, name.utf8.count <= 255 else { return false }
        return name.unicodeScalars.allSatisfy { $0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_" }
    }
}
