//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

/// A user of a container: the record name CloudKit gives them there and their contact details.
public struct UserIdentity: Sendable, Hashable {
    /// The container-specific user record name (`_` followed by 32 hex digits).
    public var userRecordName: String
    /// The name the user goes by.
    public var name: String
    /// An email address others may look the user up by.
    public var emailAddress: String?
    /// A phone number others may look the user up by.
    public var phoneNumber: String?

    /// Creates a user identity.
    public init(userRecordName: String, name: String, emailAddress: String? = nil, phoneNumber: String? = nil) {
        self.userRecordName = userRecordName
        self.name = name
        self.emailAddress = emailAddress
        self.phoneNumber = phoneNumber
    }
}
