//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

package import NimbusModel

/// Writes the share keys of a share record (ckws §6.3) and participant dictionaries (§6.4).
package enum WireShare {
    /// Writes `shortGUID`, `publicPermission`, `participants`, `owner`,
    /// `currentUserParticipant` and, after a save that removed some, `removedParticipants`.
    package static func writeKeys(of details: ShareDetails, to writer: inout JSONWriter) {
        let share = details.share
        writer.field("shortGUID", share.shortGUID)
        writer.field("publicPermission", share.publicPermission.rawValue)
        writer.key("requestsEnabled")
        writer.bool(share.requestsEnabled)
        writer.key("participants")
        writer.beginArray()
        for participant in share.participants { write(participant, to: &writer) }
        writer.endArray()
        if let owner = share.owner {
            writer.key("owner")
            write(owner, to: &writer)
        }
        if let current = details.currentUserParticipant {
            writer.key("currentUserParticipant")
            write(current, to: &writer)
        }
        if !details.removedParticipants.isEmpty {
            writer.key("removedParticipants")
            writer.beginArray()
            for participant in details.removedParticipants { write(participant, to: &writer) }
            writer.endArray()
        }
        if let root = share.rootRecordName {
            // Not in Apple's responses, but clients need the root to show a share alone.
            writer.key("rootRecord")
            writer.beginObject()
            writer.field("recordName", root)
            writer.endObject()
        }
    }

    /// Writes one participant dictionary.
    static func write(_ participant: ShareParticipant, to writer: inout JSONWriter) {
        writer.beginObject()
        writer.field("participantId", participant.participantID)
        writer.key("userIdentity")
        writer.beginObject()
        if let user = participant.userRecordName { writer.field("userRecordName", user) }
        if let name = participant.name {
            writer.key("nameComponents")
            writer.beginObject()
            let parts = WireUser(UserIdentity(userRecordName: participant.userRecordName ?? "", name: name))
            if let first = parts.firstName { writer.field("givenName", first) }
            if let last = parts.lastName { writer.field("familyName", last) }
            writer.endObject()
        }
        if let lookup = participant.lookupInfo {
            writer.key("lookupInfo")
            writer.beginObject()
            lookup.writeMember(to: &writer)
            writer.endObject()
        }
        writer.endObject()
        writer.field("type", participant.role.wireName)
        writer.field("acceptanceStatus", participant.acceptance.rawValue)
        writer.field("permission", participant.permission.rawValue)
        writer.endObject()
    }
}
