//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusModel
import NimbusStore

/// Decides who is notified of one committed write, and of what: the evaluation half of the
/// dispatcher, without I/O.
///
/// Each recipient sees the write through what they may read: the owner all of their zone, a
/// participant the records of the shares they accepted (a record that left those shares is a
/// deletion for them), anyone the public database. Each subscription gets at most one
/// notification per write, listing every change it matched: the coalescing CloudKit lacks.
struct NotificationPlanner {
    /// Someone who may be notified, and what they may read of the zone.
    struct Recipient {
        var userRecordName: String
        var scope: DatabaseScope
        /// The shares whose records they may read; `nil` for everything in the zone.
        var shares: Set<String>?

        func canRead(recordIn share: String?) -> Bool {
            guard let shares else { return true }
            if shares.contains(Share.zoneShareName) { return true }
            return share.map(shares.contains) ?? false
        }
    }

    /// One change as one recipient sees it.
    struct VisibleChange {
        var recordName: String
        var recordType: String
        var reason: Subscription.FiresOn
        /// The record's state (for a deletion, as it was), when known.
        var record: Record?
    }

    let event: ChangeEvent
    let rows: ChangeEventRows

    /// The changes of the event that `recipient` may know of.
    func changes(visibleTo recipient: Recipient) -> [VisibleChange] {
        var changes: [VisibleChange] = []
        var seen: Set<NameKey> = []
        for record in rows.saved where recipient.canRead(recordIn: record.containingShare) {
            let name = record.recordID.recordName
            let reason: Subscription.FiresOn = event.note.created.contains(NameKey(name)) ? .create : .update
            changes.append(VisibleChange(recordName: name, recordType: record.recordType, reason: reason, record: record))
            seen.insert(NameKey(name))
        }
        for (tombstone, share) in rows.deleted where recipient.canRead(recordIn: share) && !seen.contains(NameKey(tombstone.recordName)) {
            let before = event.note.deleted.first { $0.recordID.recordName == tombstone.recordName }
            changes.append(VisibleChange(recordName: tombstone.recordName, recordType: tombstone.recordType, reason: .delete, record: before))
            seen.insert(NameKey(tombstone.recordName))
        }
        // A record that left the recipient's shares is gone for them.
        if recipient.shares != nil {
            for (name, share) in rows.exits where recipient.canRead(recordIn: share) && !seen.contains(NameKey(name)) {
                let current = rows.saved.first { $0.recordID.recordName == name }
                if let current, recipient.canRead(recordIn: current.containingShare) { continue }
                // The record as it is now is outside what the recipient may read: filters and
                // rules must not see it, so the deletion carries no record.
                changes.append(VisibleChange(recordName: name, recordType: current?.recordType ?? "", reason: .delete, record: nil))
                seen.insert(NameKey(name))
            }
        }
        return changes
    }

    /// The changes a subscription fires on, from those the recipient may see.
    func matches(of subscription: Subscription, in changes: [VisibleChange]) -> [VisibleChange] {
        Self.matches(of: subscription, in: changes, zoneID: ZoneID(zoneName: event.zoneName, ownerRecordName: event.tenant.owner))
    }

    /// The changes in a zone a subscription fires on.
    static func matches(of subscription: Subscription, in changes: [VisibleChange], zoneID: ZoneID) -> [VisibleChange] {
        switch subscription.kind {
        case .database:
            return changes
        case .zone(let watched):
            return watched == zoneID ? changes : []
        case .query(let query, let watched, let firesOn, _):
            if let watched, watched != zoneID { return [] }
            return changes.filter { change in
                guard change.recordType == query.recordType, firesOn.contains(change.reason) else { return false }
                guard let record = change.record else { return query.filters.isEmpty }
                return FilterEvaluator.matches(record, query.filters)
            }
        }
    }
}
