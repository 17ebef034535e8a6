//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import NimbusModel
public import NimbusStore

extension DatabaseService {
    /// Returns every share a user owns or is listed in, with every participant (removed ones
    /// too), for operators: `nimbus share list`.
    ///
    /// - Important: This answers for the server's operator, not for a client: it checks no
    ///   access. Nothing reachable over HTTP calls it.
    public func inspectShares(of userRecordName: String, container: String, environment: Environment) async throws(NimbusError)
        -> [LocatedShare]
    {
        try await store {
            try await shares.sharesInvolving(userRecordName, in: ContainerEnvironment(container: container, environment: environment))
        }
    }
}
