//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusModel

/// Users' grants of support access, and the reads operators made under them.
public protocol SupportAccessStore: Sendable {
    /// Keeps a new grant.
    func addSupportGrant(_ grant: SupportGrant) async throws

    /// A user's grants, newest first: live, expired and revoked ones.
    func supportGrants(of user: String, in environment: ContainerEnvironment, limit: Int) async throws -> [SupportGrant]

    /// Ends one of the user's grants at `now`; whether there was such a live grant.
    func revokeSupportGrant(id: String, of user: String, in environment: ContainerEnvironment, now: Int64) async throws -> Bool

    /// Records a read under a grant, where the user sees it, and in the console's audit log,
    /// together: a read is never in one without the other.
    func recordSupportRead(_ read: SupportRead, audit: ConsoleAuditEntry) async throws

    /// The reads made under these grants, newest first.
    func supportReads(grantIDs: [String], limit: Int) async throws -> [SupportRead]
}
