//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import NimbusModel
import NimbusStore

extension DatabaseService {
    /// Removes the tombstones of records deleted longer than `retention` ago, in every tenant.
    ///
    /// A client whose sync token predates a removed tombstone can no longer learn of that delete,
    /// so its token is refused from then on (`BAD_REQUEST`, "sync from scratch"); clients that
    /// sync more often than `retention` never notice. Returns how many tombstones were removed.
    public func pruneTombstones(olderThan retention: Duration) async throws(NimbusError) -> Int {
        // Clamped, so an absurd retention keeps everything instead of overflowing.
        let seconds = min(max(retention.components.seconds, 0), Int64.max / 2_000)
        let cutoff = clock.millisecondsSince1970 - seconds * 1000
        return try await store { try await records.pruneTombstones(deletedBefore: cutoff) }
    }
}
