//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Logging
import NimbusModel
import NimbusStore

extension NimbusError {
    /// The error a client sees for a failed store call: the one mapping of store failures, used
    /// by every service. A ``NimbusError`` the call threw passes through; a ``StoreError`` is
    /// mapped by its kind; anything else is an internal error. What the client is not told is
    /// logged here.
    static func fromStore(_ error: any Error, logger: Logger) -> NimbusError {
        switch error {
        case let error as NimbusError:
            return error
        case let error as StoreError:
            return error.nimbusError(logger: logger)
        default:
            logger.error("Store call failed", metadata: [LogKey.error: "\(String(reflecting: error))"])
            return NimbusError(.internalError, "internal error")
        }
    }
}

extension StoreError {
    /// The error a client sees for a store failure; driver detail goes to the log only.
    func nimbusError(logger: Logger) -> NimbusError {
        switch kind {
        case .zoneNotFound: return NimbusError.zoneNotFound
        case .alreadyExists: return NimbusError(.alreadyExists, "already exists")
        case .zoneRecreated:
            return NimbusError(
                .changeTokenExpired,
                "syncToken is for a zone that has since been deleted and created again; sync this zone from scratch by leaving out syncToken"
            )
        case .changesPruned:
            return NimbusError(
                .changeTokenExpired,
                "syncToken has expired: changes after it are no longer kept; sync this zone from scratch by leaving out syncToken"
            )
        case .unstorableValue:
            return NimbusError(.badRequest, "a value in the request cannot be stored (text must not contain NUL characters)")
        case .quotaExceeded:
            return NimbusError(.quotaExceeded, "the owner's storage quota is exhausted (\(detail)); nothing was written")
        case .assetNotFound:
            return NimbusError(.badRequest, "an asset of the record is gone (unreferenced uploads are removed after a while); upload it again")
        case .constraintViolation:
            logger.error("Database refused a write", metadata: [LogKey.error: "\(debugDescription)"])
            return NimbusError(.internalError, "internal error")
        case .database:
            logger.error("Database failed", metadata: [LogKey.error: "\(debugDescription)"])
            return NimbusError(.serviceUnavailable, "the database is unavailable; try again", retryAfter: .seconds(1))
        case .outcomeUnknown:
            // No retryAfter: it would tell clients the work was not done, and a write sent again
            // could then report its own success as a conflict.
            logger.error("Database stopped answering during a commit", metadata: [LogKey.error: "\(debugDescription)"])
            return NimbusError(
                .serviceUnavailable,
                "the database stopped answering while saving; the change may or may not have been made: read it back before sending it again"
            )
        }
    }
}
