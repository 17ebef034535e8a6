//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

package import NimbusModel

extension ShareChange {
    /// Writes the share keys of a `records/modify` record, the ones ``read(record:at:)`` reads,
    /// into the record dictionary being written.
    package func write(intoRecord writer: inout JSONWriter) {
        if let rootRecordName {
            writer.key("forRecord")
            writer.beginObject()
            writer.field("recordName", rootRecordName)
            writer.endObject()
        }
        if let publicPermission { writer.field("publicPermission", publicPermission.rawValue) }
        if let requestsEnabled { writer.field("requestsEnabled", requestsEnabled) }
        if let participants {
            writer.key("participants")
            writer.beginArray()
            for participant in participants { participant.write(to: &writer) }
            writer.endArray()
        }
    }
}

extension ParticipantInput {
    /// Writes a participant dictionary: an existing participant by ID, or an invitation by
    /// lookup info, with the role and permission asked for.
    func write(to writer: inout JSONWriter) {
        writer.beginObject()
        if let participantID { writer.field("participantId", participantID) }
        if let role { writer.field("type", role.wireName) }
        if let permission { writer.field("permission", permission.rawValue) }
        if let lookupInfo {
            writer.key("userIdentity")
            writer.beginObject()
            writer.key("lookupInfo")
            writer.beginObject()
            switch lookupInfo {
            case .emailAddress(let address): writer.field("emailAddress", address)
            case .phoneNumber(let number): writer.field("phoneNumber", number)
            case .userRecordName(let user): writer.field("userRecordName", user)
            }
            writer.endObject()
            writer.endObject()
        }
        writer.endObject()
    }
}
