//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import NimbusModel

/// `users/lookup/email` and `users/lookup/id`: `{"users": [user]}` with the users found, in the
/// legacy user dictionary; `emailAddress` only for lookups by email, echoing what was asked.
public struct UsersLookupResponse: WireResponse {
    /// Each user found with the lookup that found them.
    public var users: [(lookup: LookupInfo, user: UserIdentity)]

    /// Creates the response.
    public init(users: [(lookup: LookupInfo, user: UserIdentity)]) {
        self.users = users
    }

    package func write(to writer: inout JSONWriter, options: WireOptions) {
        writer.beginObject()
        writer.key("users")
        writer.beginArray()
        for (lookup, user) in users {
            let legacy = WireUser(user)
            writer.beginObject()
            writer.field("userRecordName", user.userRecordName)
            if let firstName = legacy.firstName { writer.field("firstName", firstName) }
            if let lastName = legacy.lastName { writer.field("lastName", lastName) }
            if case .emailAddress(let email) = lookup { writer.field("emailAddress", email) }
            writer.key("isDiscoverable")
            writer.bool(true)
            writer.endObject()
        }
        writer.endArray()
        writer.endObject()
    }
}

/// `users/discover`: `{"users": [identity]}`, one per lookup. A match is a full identity whose
/// `lookupInfo` echoes the lookup; no match comes back with only the `lookupInfo`.
public struct UsersDiscoverResponse: WireResponse {
    /// Each lookup with the user it found, if any.
    public var results: [(lookup: LookupInfo, user: UserIdentity?)]

    /// Creates the response.
    public init(results: [(lookup: LookupInfo, user: UserIdentity?)]) {
        self.results = results
    }

    package func write(to writer: inout JSONWriter, options: WireOptions) {
        writer.beginObject()
        writer.key("users")
        writer.beginArray()
        for (lookup, user) in results {
            writer.beginObject()
            if let user { WireUser(user).writeIdentityName(to: &writer) }
            writer.key("lookupInfo")
            writer.beginObject()
            // Only what the caller asked by: a lookup by email does not reveal a phone number.
            lookup.writeMember(to: &writer)
            if let user {
                switch lookup {
                case .userRecordName: break
                case .emailAddress, .phoneNumber: writer.field("userRecordName", user.userRecordName)
                }
            }
            writer.endObject()
            writer.endObject()
        }
        writer.endArray()
        writer.endObject()
    }
}

extension LookupInfo {
    /// Writes the lookup's one member (`emailAddress`, `phoneNumber` or `userRecordName`) into
    /// the open lookup info object.
    func writeMember(to writer: inout JSONWriter) {
        switch self {
        case .emailAddress(let email): writer.field("emailAddress", email)
        case .phoneNumber(let phone): writer.field("phoneNumber", phone)
        case .userRecordName(let name): writer.field("userRecordName", name)
        }
    }
}
