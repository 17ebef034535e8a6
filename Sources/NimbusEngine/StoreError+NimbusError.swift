//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Logging
import NimbusModel
import NimbusStore

extension StoreError {
    /// The error a client sees for a store failure; driver detail goes to the log only.
    func nimbusError(logger: Logger) -> NimbusError {
        switch kind {
        case .zoneNotFound: return NimbusError.zoneNotFound
        case .alreadyExists: return NimbusError(.alreadyExists, "already exists")
        case .database:
            logger.error("Database failed", metadata: ["nimbus.error": "\(debugDescription)"])
            return NimbusError(.serviceUnavailable, "the database is unavailable; try again", retryAfter: .seconds(1))
        }
    }
}
