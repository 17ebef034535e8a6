//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

package import NimbusModel

extension WireShare {
    /// Reads the share keys of a share record's dictionary, as ``writeKeys(of:to:)`` writes
    /// them: a share of that record name. Lenient, as an SDK reading its server must be: a
    /// participant it cannot read is left out, an unknown permission is `NONE`.
    package static func share(named recordName: String, keys members: JSONObject) -> Share {
        var participants: [ShareParticipant] = []
        if case .array(let items)? = members["participants"] {
            participants = items.compactMap(participant)
        }
        var root: String?
        if case .object(let rootRecord)? = members["rootRecord"], case .string(let name)? = rootRecord["recordName"] { root = name }
        return Share(
            recordName: recordName,
            rootRecordName: root,
            shortGUID: text("shortGUID", in: members) ?? "",
            publicPermission: SharePermission(rawValue: text("publicPermission", in: members) ?? "") ?? .none,
            participants: participants,
            requestsEnabled: members["requestsEnabled"] == .bool(true)
        )
    }

    /// Reads one participant dictionary (see ``write(_:to:)``).
    static func participant(_ json: JSONValue) -> ShareParticipant? {
        guard case .object(let members) = json else { return nil }
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
            // The wire says USER for CloudKit JS's PRIVATE_USER.
            role: roleName == "USER" ? .privateUser : ShareRole(rawValue: roleName) ?? .privateUser,
            acceptance: ShareAcceptance(rawValue: text("acceptanceStatus", in: members) ?? "") ?? .pending,
            permission: SharePermission(rawValue: text("permission", in: members) ?? "") ?? .none
        )
    }

    private static func text(_ key: String, in object: JSONObject) -> String? {
        if case .string(let value)? = object[key] { return value }
        return nil
    }
}
