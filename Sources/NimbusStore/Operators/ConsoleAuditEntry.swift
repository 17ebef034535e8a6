//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

/// One change made through the console, or one read of a user's data under their grant: who,
/// what, on what, and when. Kept for as long as the server's data.
public struct ConsoleAuditEntry: Sendable, Hashable {
    /// When, in milliseconds since 1970.
    public var at: Int64
    /// The operator's address at the time.
    public var operatorEmail: String
    /// What was done, such as `api-token.create` or `user.disable`.
    public var action: String
    /// The container the change was in, when it was in one.
    public var container: String?
    /// What was changed: a user's record name, a token's first characters.
    public var target: String
    /// The user whose data was read under a grant, so they can see the read.
    public var subjectUser: String?

    /// Creates an entry.
    public init(at: Int64, operatorEmail: String, action: String, container: String?, target: String, subjectUser: String? = nil) {
        self.at = at
        self.operatorEmail = operatorEmail
        self.action = action
        self.container = container
        self.target = target
        self.subjectUser = subjectUser
    }
}
