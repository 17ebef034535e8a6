//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Logging
import NimbusEngine
import NimbusModel
import ServiceLifecycle

/// Removes old tombstones now and then, so deleted records do not cost storage forever.
///
/// A client whose sync token is older than the retention is told to sync from scratch (see
/// docs/sync.md). Stops at graceful shutdown, before the store closes.
struct TombstonePruner: Service, CustomStringConvertible {
    /// The service lifecycle logs services by their descriptions; a name is all it needs.
    var description: String { "TombstonePruner" }

    let database: DatabaseService
    let retention: Duration
    let interval: Duration
    let logger: Logger

    func run() async throws {
        // Shutdown cancels the sleep; that is the normal way out, not a failure.
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                guard (try? await Task.sleep(for: interval)) != nil else { return }
                do {
                    let removed = try await database.pruneTombstones(olderThan: retention)
                    if removed > 0 { logger.info("Pruned tombstones", metadata: [LogKey.count: "\(removed)"]) }
                } catch {
                    logger.warning("Pruning tombstones failed", metadata: [LogKey.error: "\(error)"])
                }
            }
        }
    }
}
