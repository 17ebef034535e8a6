//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import NimbusModel

/// The body of `notifications/explain` (Nimbus extension): would a change to this record
/// notify the caller through this subscription, and by which rule.
public struct NotificationExplainRequest: WireRequest {
    /// One of the caller's subscriptions in this database.
    public var subscriptionID: String
    /// A record the caller may read.
    public var recordName: String
    /// Its zone; the default zone if absent.
    public var zoneID: ZoneID?
    /// `create`, `update` or `delete`; guessed from the record if absent.
    public var reason: Subscription.FiresOn?
    /// Who made the change (a user record name); the record's last modifier if absent.
    public var writer: String?

    package init(json: JSONValue) throws(NimbusError) {
        let members = try json.object(at: "the body")
        subscriptionID = try members.required("subscriptionID", at: "").string(at: "subscriptionID")
        recordName = try members.required("recordName", at: "").string(at: "recordName")
        zoneID = try members.zoneID()
        if let text = try members.optional("reason")?.string(at: "reason") {
            guard let reason = Subscription.FiresOn(rawValue: text.lowercased()) else {
                throw .badRequest("unknown reason '\(text)': expected create, update or delete")
            }
            self.reason = reason
        }
        writer = try members.optional("writer")?.string(at: "writer")
    }
}

/// The answer of `notifications/explain`.
public struct NotificationExplainResponse: WireResponse {
    /// The subscription asked about.
    public var subscriptionID: String
    /// The record asked about.
    public var recordName: String
    /// The kind of change assumed.
    public var reason: Subscription.FiresOn
    /// Whether the subscription fires on the change at all.
    public var fires: Bool
    /// `visible`, `silent` or `none`.
    public var decision: NotificationRule.Decision
    /// The rule that decided, if any.
    public var rule: String?
    /// How the decision was reached.
    public var steps: [String]

    /// Creates the response.
    public init(
        subscriptionID: String,
        recordName: String,
        reason: Subscription.FiresOn,
        fires: Bool,
        decision: NotificationRule.Decision,
        rule: String?,
        steps: [String]
    ) {
        self.subscriptionID = subscriptionID
        self.recordName = recordName
        self.reason = reason
        self.fires = fires
        self.decision = decision
        self.rule = rule
        self.steps = steps
    }

    package func write(to writer: inout JSONWriter, options: WireOptions) {
        writer.beginObject()
        writer.field("subscriptionID", subscriptionID)
        writer.field("recordName", recordName)
        writer.field("reason", reason.rawValue)
        writer.key("fires")
        writer.bool(fires)
        writer.field("decision", decision.rawValue)
        writer.key("rule")
        if let rule { writer.string(rule) } else { writer.null() }
        writer.key("steps")
        writer.beginArray()
        for step in steps { writer.string(step) }
        writer.endArray()
        writer.endObject()
    }
}
