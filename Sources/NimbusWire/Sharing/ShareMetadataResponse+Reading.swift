//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

package import NimbusModel

extension ShareMetadataResponse {
    /// Reads a `records/resolve` or `records/accept` answer as ``write(to:options:)`` writes it.
    package init(json: JSONValue) throws(NimbusError) {
        let members = try json.object(at: "the response")
        results = []
        for (index, element) in try members.required("results", at: "").array(at: "results").enumerated() {
            if WireError.isError(element) {
                results.append(.error(WireError(json: element)))
            } else {
                results.append(.metadata(try WireShareMetadata(json: element, at: jsonPath("results", index))))
            }
        }
    }
}

extension WireShareMetadata {
    /// Reads one share's metadata. The share comes back as a record whose ``Record/shareDetails``
    /// hold the share's keys; the owner's name, when the answer gives one, is its given and
    /// family names joined.
    init(json: JSONValue, at path: @autoclosure () -> String) throws(NimbusError) {
        let members = try json.object(at: path())
        func text(_ key: String) throws(NimbusError) -> String { try members.required(key, at: path()).string(at: jsonPath(path(), key)) }
        let zoneID = try RecordWireCoding.zoneID(try members.required("zoneID", at: path()), at: jsonPath(path(), "zoneID"))
        let shareJSON = try members.required("share", at: path())
        var share = try RecordWireCoding.record(shareJSON, in: zoneID, at: jsonPath(path(), "share"))
        let keys = try shareJSON.object(at: jsonPath(path(), "share"))
        share.shareDetails = ShareDetails(share: WireShare.share(named: share.recordID.recordName, keys: keys), currentUserParticipant: nil)
        let rootRecord = try members.optional("rootRecord").map { (root) throws(NimbusError) in
            try RecordWireCoding.record(root, in: zoneID, at: jsonPath(path(), "rootRecord"))
        }
        self.init(
            shortGUID: try text("shortGUID"),
            containerIdentifier: try text("containerIdentifier"),
            environment: try text("environment"),
            zoneID: zoneID,
            share: share,
            rootRecordName: try members.optional("rootRecordName")?.string(at: jsonPath(path(), "rootRecordName")),
            rootRecord: rootRecord,
            participantRole: nil,
            participantStatus: nil,
            participantPermission: .none,
            ownerIdentity: Self.owner(members["ownerIdentity"])
        )
        participantType = try text("participantType")
        participantStatus = try text("participantStatus")
        participantPermission = try text("participantPermission")
    }

    private static func owner(_ json: JSONValue?) -> UserIdentity? {
        guard case .object(let identity)? = json, case .object(let lookup)? = identity["lookupInfo"],
            case .string(let user)? = lookup["userRecordName"]
        else { return nil }
        var parts: [String] = []
        if case .object(let name)? = identity["nameComponents"] {
            for key in ["givenName", "familyName"] { if case .string(let part)? = name[key] { parts.append(part) } }
        }
        return UserIdentity(userRecordName: user, name: parts.joined(separator: " "))
    }
}
