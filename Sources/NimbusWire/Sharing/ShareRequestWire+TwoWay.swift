//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import NimbusModel

extension ShareRequestDecision: WireRequestBody {
    /// A `requests/list` (no user), `requests/approve` or `requests/deny` request.
    public init(zoneID: ZoneID?, shareName: String, userRecordName: String? = nil, permission: SharePermission = .readOnly) {
        self.zoneID = zoneID
        self.shareName = shareName
        self.userRecordName = userRecordName
        self.permission = permission
    }

    package func write(to writer: inout JSONWriter) {
        writer.beginObject()
        if let zoneID { writer.field("zoneID", zoneID) }
        writer.field("shareName", shareName)
        if let userRecordName { writer.field("userRecordName", userRecordName) }
        writer.field("permission", permission.rawValue)
        writer.endObject()
    }
}

extension ShareRequestsResponse {
    /// Reads a `requests/*` answer as ``write(to:options:)`` writes it.
    package init(json: JSONValue) throws(NimbusError) {
        let members = try json.object(at: "the response")
        requests = []
        for (index, element) in try members.required("requests", at: "").array(at: "requests").enumerated() {
            let path = jsonPath("requests", index)
            let request = try element.object(at: path)
            func text(_ key: String) throws(NimbusError) -> String { try request.required(key, at: path).string(at: jsonPath(path, key)) }
            let statusName = try text("status")
            guard let status = ShareRequest.Status(rawValue: statusName) else {
                throw .badRequest("\(jsonPath(path, "status")) is not a request status: '\(statusName.prefix(64))'")
            }
            requests.append(
                ShareRequest(
                    shareName: try text("shareName"),
                    userRecordName: try text("userRecordName"),
                    status: status,
                    requestedAt: try request.required("requestedAt", at: path).integer(at: jsonPath(path, "requestedAt"))
                )
            )
        }
    }
}
