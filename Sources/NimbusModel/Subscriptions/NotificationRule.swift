//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

/// A per-recipient notification rule: declarative data attached to a subscription, evaluated
/// on the server for each recipient of each change, with only what that recipient may read.
///
/// A subscription's rules are tried in order for every change it fires on; the first whose
/// record types, reasons and condition hold decides. A change no rule decides is notified as
/// the subscription's `notificationInfo` says.
public struct NotificationRule: Sendable, Hashable {
    /// What a rule decides for one recipient and one change.
    public enum Decision: String, Sendable, Hashable, Comparable {
        /// Nothing: the change is left out of the recipient's notification.
        case none
        /// A silent update: the notification only wakes the app (`content-available`).
        case silent
        /// The notification as `notificationInfo` describes it.
        case visible

        private var rank: Int {
            switch self {
            case .none: 0
            case .silent: 1
            case .visible: 2
            }
        }

        public static func < (lhs: Decision, rhs: Decision) -> Bool { lhs.rank < rhs.rank }
    }

    /// The rule's name, reported by the dry run and in `ck.nimbus.rules`.
    public var name: String
    /// The record types whose changes the rule looks at; `nil` for all.
    public var recordTypes: Set<String>?
    /// The kinds of change the rule looks at; `nil` for all.
    public var reasons: Set<Subscription.FiresOn>?
    /// When the rule applies; `nil` always.
    public var condition: RuleCondition?
    /// What it decides when it applies.
    public var decision: Decision

    /// Creates a rule.
    public init(
        name: String,
        recordTypes: Set<String>? = nil,
        reasons: Set<Subscription.FiresOn>? = nil,
        when condition: RuleCondition? = nil,
        then decision: Decision
    ) {
        self.name = name
        self.recordTypes = recordTypes
        self.reasons = reasons
        self.condition = condition
        self.decision = decision
    }
}

/// A condition of a ``NotificationRule``.
///
/// Values in conditions may name variables, written as strings: `$recipient` and `$writer`
/// (user record names), `$record.NAME` and `$parent.NAME` (a field of the changed record or
/// of its parent, or one of `recordName`, `parent`, `___createTime`, `___modTime`,
/// `___createdBy`, `___modifiedBy`).
public indirect enum RuleCondition: Sendable, Hashable {
    /// Every condition holds.
    case all([RuleCondition])
    /// At least one condition holds.
    case any([RuleCondition])
    /// The condition does not hold.
    case not(RuleCondition)
    /// The recipient made the change.
    case recipientIsWriter
    /// The recipient is the user a value names (such as `$parent.___createdBy`).
    case recipientIs(FieldValue)
    /// A filter holds on the changed record (`.record`) or on its parent (`.parent`); a parent
    /// the recipient may not read is treated as absent, so the filter does not hold.
    case field(RuleSubject, Filter)
    /// The recipient's private database holds a record of this type, in this zone, matching
    /// every filter: their own settings, such as a muted chat or a read marker.
    case recipientHas(recordType: String, zoneName: String, filters: [Filter])
}

/// The record a ``RuleCondition/field(_:_:)`` condition looks at.
public enum RuleSubject: String, Sendable, Hashable {
    /// The changed record.
    case record
    /// The changed record's parent.
    case parent
}
