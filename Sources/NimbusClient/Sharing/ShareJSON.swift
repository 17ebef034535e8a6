//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusModel

/// The share record of the wire protocol (ckws §6.3), read from responses.
enum ShareJSON {
    static func share(_ json: JSONValue, in zoneID: ZoneID, at path: String) throws(NimbusError) -> ShareInfo {
        let record = try RecordWireCoding.record(json, in: zoneID, at: path)
        let members = try json.object(at: path)
        var participants: [ShareParticipant] = []
        if case .array(let items)? = members["participants"] {
            for item in items {
                if let participant = Self.participant(item) { participants.append(participant) }
            }
        }
        var shortGUID = ""
        if case .string(let value)? = members["shortGUID"] { shortGUID = value }
        var publicPermission = SharePermission.none
        if case .string(let value)? = members["publicPermission"], let permission = SharePermission(rawValue: value) {
            publicPermission = permission
        }
        return ShareInfo(
            recordName: record.recordID.recordName,
            zoneID: record.recordID.zoneID,
            shortGUID: shortGUID,
            publicPermission: publicPermission,
            participants: participants,
            recordChangeTag: record.recordChangeTag,
            requestsEnabled: members["requestsEnabled"] == .bool(true)
        )
    }

    private static func participant(_ json: JSONValue) -> ShareParticipant? {
        guard case .object(let members) = json else { return nil }
        func text(_ key: String, in object: JSONObject) -> String? {
            if case .string(let value)? = object[key] { return value }
            return nil
        }
        var userRecordName: String?
        var lookupInfo: LookupInfo?
        if case .object(let identity)? = members["userIdentity"] {
            userRecordName = text("userRecordName", in: identity)
            if case .object(let lookup)? = identity["lookupInfo"] {
                if let email = text("emailAddress", in: lookup) {
                    lookupInfo = .emailAddress(email)
                } else if let phone = text("phoneNumber", in: lookup) {
                    lookupInfo = .phoneNumber(phone)
                } else if let user = text("userRecordName", in: lookup) {
                    lookupInfo = .userRecordName(user)
                }
            }
        }
        let roleName = text("type", in: members) ?? "UNKNOWN"
        return ShareParticipant(
            participantID: text("participantId", in: members) ?? "",
            userRecordName: userRecordName,
            lookupInfo: lookupInfo,
            // The wire says USER for CloudKit JS's PRIVATE_USER, and INVITED for PENDING.
            role: roleName == "USER" ? .privateUser : ShareRole(rawValue: roleName) ?? .privateUser,
            acceptance: ShareAcceptance(rawValue: text("acceptanceStatus", in: members) ?? "") ?? .pending,
            permission: SharePermission(rawValue: text("permission", in: members) ?? "") ?? .none
        )
    }
}
