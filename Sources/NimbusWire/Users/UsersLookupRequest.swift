//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import NimbusModel

/// The body of `users/lookup/email`, `users/lookup/id` and `POST users/discover`: a list of
/// lookup infos, under `users` (the lookups) or `lookupInfos` (discover), each with one of
/// `emailAddress`, `phoneNumber`, `userRecordName`.
public struct UsersLookupRequest: WireRequest {
    /// The lookups, in request order.
    public var lookups: [LookupInfo]

    package init(json: JSONValue) throws(NimbusError) {
        let members = try json.object(at: "the body")
        let key = members.optional("lookupInfos") != nil ? "lookupInfos" : "users"
        lookups = try members.required(key, at: "").array(at: key).enumerated().map { (index, element) throws(NimbusError) in
            let path = jsonPath(key, index)
            let info = try element.object(at: path)
            if let email = info.optional("emailAddress") { return .emailAddress(try email.string(at: jsonPath(path, "emailAddress"))) }
            if let phone = info.optional("phoneNumber") { return .phoneNumber(try phone.string(at: jsonPath(path, "phoneNumber"))) }
            if let name = info.optional("userRecordName") { return .userRecordName(try name.string(at: jsonPath(path, "userRecordName"))) }
            throw .badRequest("\(path) needs one of emailAddress, phoneNumber, userRecordName")
        }
    }
}
