//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import HTTPTypes
public import NimbusModel

extension NimbusError.Code {
    /// The HTTP status CloudKit Web Services answers a whole-request failure of this code with.
    public var httpStatus: HTTPResponse.Status {
        switch self {
        case .permissionFailure: .forbidden
        case .authenticationFailed: .unauthorized
        // 421 is "Misdirected Request" in HTTP/2; CloudKit uses it for "sign in first" anyway.
        case .authenticationRequired: .misdirectedRequest
        case .serverRecordChanged, .alreadyExists: .conflict
        case .internalError: .internalServerError
        case .unknownItem, .zoneNotFound: .notFound
        case .quotaExceeded: .contentTooLarge
        case .requestRateLimited: .tooManyRequests
        case .serviceUnavailable: .serviceUnavailable
        case .referenceViolation: .preconditionFailed
        default: .badRequest
        }
    }
}
