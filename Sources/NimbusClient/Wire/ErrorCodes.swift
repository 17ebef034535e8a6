//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusModel

/// The wire's error codes as ``NimbusError/Code``s.
enum ErrorCodes {
    /// CloudKit's `serverErrorCode`; an unknown one is an internal error.
    static func code(serverErrorCode: String) -> NimbusError.Code {
        switch serverErrorCode {
        case "ACCESS_DENIED": .permissionFailure
        case "ATOMIC_ERROR": .atomicFailure
        case "AUTHENTICATION_FAILED": .authenticationFailed
        case "AUTHENTICATION_REQUIRED": .authenticationRequired
        case "BAD_REQUEST": .badRequest
        case "CONFLICT": .serverRecordChanged
        case "EXISTS": .alreadyExists
        case "NOT_FOUND", "UNKNOWN_ITEM": .unknownItem
        case "QUOTA_EXCEEDED": .quotaExceeded
        case "THROTTLED": .requestRateLimited
        case "TRY_AGAIN_LATER": .serviceUnavailable
        case "VALIDATING_REFERENCE_ERROR": .referenceViolation
        case "ZONE_NOT_FOUND": .zoneNotFound
        default: .internalError
        }
    }

    /// Nimbus's finer `nimbusErrorCode`, where the wire code is shared.
    static func code(nimbusErrorCode: String) -> NimbusError.Code? {
        switch nimbusErrorCode {
        case "CHANGE_TOKEN_EXPIRED": .changeTokenExpired
        case "LIMIT_EXCEEDED": .limitExceeded
        default: nil
        }
    }
}
