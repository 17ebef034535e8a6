//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

package import NimbusModel

extension ShareChange {
    /// Reads the share keys of a `records/modify` record: `forRecord`, `publicPermission`,
    /// `participants`. Returns `nil` when the record has none of them.
    package static func read(record: JSONObject, at path: @autoclosure () -> String) throws(NimbusError) -> ShareChange? {
        var change = ShareChange()
        var hasAny = false
        if let forRecord = record.optional("forRecord"), forRecord != .null {
            let forPath = jsonPath(path(), "forRecord")
            change.rootRecordName = try forRecord.object(at: forPath).required("recordName", at: forPath)
                .string(at: jsonPath(forPath, "recordName"))
            hasAny = true
        }
        if let permission = record.optional("publicPermission"), permission != .null {
            change.publicPermission = try SharePermission.read(permission, at: jsonPath(path(), "publicPermission"))
            hasAny = true
        }
        if let requests = record.optional("requestsEnabled"), requests != .null {
            guard case .bool(let enabled) = requests else { throw .badRequest("\(jsonPath(path(), "requestsEnabled")) must be true or false") }
            change.requestsEnabled = enabled
            hasAny = true
        }
        if let participants = record.optional("participants"), participants != .null {
            let listPath = jsonPath(path(), "participants")
            change.participants = []
            for (index, element) in try participants.array(at: listPath).enumerated() {
                change.participants?.append(try ParticipantInput.read(element, at: jsonPath(listPath, index)))
            }
            hasAny = true
        }
        return hasAny ? change : nil
    }
}

extension ParticipantInput {
    /// Reads a participant dictionary; `acceptanceStatus` is the server's to set and is ignored.
    static func read(_ json: JSONValue, at path: @autoclosure () -> String) throws(NimbusError) -> ParticipantInput {
        let members = try json.object(at: path())
        var input = ParticipantInput(lookupInfo: nil)
        input.participantID = try (members.optional("participantId") ?? members.optional("participantID"))?
            .string(at: jsonPath(path(), "participantId"))
        if let identity = members.optional("userIdentity"), identity != .null {
            let identityPath = jsonPath(path(), "userIdentity")
            let identityMembers = try identity.object(at: identityPath)
            if let lookup = identityMembers.optional("lookupInfo"), lookup != .null {
                input.lookupInfo = try LookupInfo.read(lookup, at: jsonPath(identityPath, "lookupInfo"))
            } else if let name = identityMembers.optional("userRecordName") {
                input.lookupInfo = .userRecordName(try name.string(at: jsonPath(identityPath, "userRecordName")))
            }
        }
        if let type = members.optional("type"), type != .null {
            input.role = try ShareRole.read(type, at: jsonPath(path(), "type"))
        }
        if let permission = members.optional("permission"), permission != .null {
            input.permission = try SharePermission.read(permission, at: jsonPath(path(), "permission"))
        }
        return input
    }
}

extension LookupInfo {
    /// Reads `{emailAddress | phoneNumber | userRecordName}`; exactly one is needed.
    package static func read(_ json: JSONValue, at path: @autoclosure () -> String) throws(NimbusError) -> LookupInfo {
        let members = try json.object(at: path())
        if let email = members.optional("emailAddress"), email != .null {
            return .emailAddress(try email.string(at: jsonPath(path(), "emailAddress")))
        }
        if let phone = members.optional("phoneNumber"), phone != .null {
            return .phoneNumber(try phone.string(at: jsonPath(path(), "phoneNumber")))
        }
        if let name = members.optional("userRecordName"), name != .null {
            return .userRecordName(try name.string(at: jsonPath(path(), "userRecordName")))
        }
        throw .badRequest("\(path()) needs one of emailAddress, phoneNumber or userRecordName")
    }
}

extension SharePermission {
    static func read(_ json: JSONValue, at path: @autoclosure () -> String) throws(NimbusError) -> SharePermission {
        let text = try json.string(at: path())
        guard let permission = SharePermission(rawValue: text.uppercased()) else {
            throw .badRequest("\(path()) must be NONE, READ_ONLY or READ_WRITE, not '\(text.prefix(64))'")
        }
        return permission
    }
}

extension ShareRole {
    /// Reads a participant type: the wire spells the private role `USER`, CloudKit JS
    /// `PRIVATE_USER`; both are accepted.
    static func read(_ json: JSONValue, at path: @autoclosure () -> String) throws(NimbusError) -> ShareRole {
        let text = try json.string(at: path())
        switch text.uppercased() {
        case "USER", "PRIVATE_USER": return .privateUser
        case "ADMINISTRATOR": return .administrator
        case "PUBLIC_USER": return .publicUser
        case "OWNER": return .owner
        default: throw .badRequest("\(path()) must be USER, ADMINISTRATOR, PUBLIC_USER or OWNER, not '\(text.prefix(64))'")
        }
    }

    /// The wire spelling.
    var wireName: String { self == .privateUser ? "USER" : rawValue }
}
