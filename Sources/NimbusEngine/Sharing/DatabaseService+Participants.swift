//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusModel
import NimbusStore

extension DatabaseService {
    /// The most participants one `records/modify` request may list across its shares. A share's
    /// participant list is saved whole, so this is also the largest share: 1,000 (CloudKit
    /// stops at 100), enough for a large group chat.
    static let maximumParticipantsPerRequest = 1_000

    /// Finds the users that the participant lists of a batch name, before its transaction: a
    /// lookup that matches nobody becomes a placeholder participant.
    func participantUsers(in operations: [RecordOperation], container: String) async throws(NimbusError) -> [LookupInfo: String] {
        let lookups = Set(operations.flatMap { $0.share?.participants ?? [] }.compactMap { $0.lookupInfo?.normalized })
        guard lookups.count <= Self.maximumParticipantsPerRequest else {
            throw .limitExceeded("a request may list at most \(Self.maximumParticipantsPerRequest) participants")
        }
        var found: [LookupInfo: String] = [:]
        for lookup in lookups {
            if let user = try await store({ try await users.user(matching: lookup, inContainer: container) }) {
                found[lookup] = user.userRecordName
            }
        }
        return found
    }
}
