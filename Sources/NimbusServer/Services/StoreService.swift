//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusSQL
import ServiceLifecycle

/// The store as a service: runs its long-lived work (PostgreSQL's pool, index builds) until the
/// group shuts down, then closes it.
///
/// First in the group, so it shuts down last: every service that reads or writes the store has
/// stopped by the time it closes.
struct StoreService: Service, CustomStringConvertible {
    var description: String { "NimbusStore" }

    let instance: NimbusInstance

    func run() async throws {
        await cancelWhenGracefulShutdown { await instance.store.run() }
        await instance.close()
    }
}
