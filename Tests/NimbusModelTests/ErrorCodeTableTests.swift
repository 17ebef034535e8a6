//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusModel
import Testing

@Suite("the table of wire error codes")
struct ErrorCodeTableTests {
    @Test(
        "every code a server sends reads back as itself, from serverErrorCode and nimbusErrorCode",
        arguments: [
            NimbusError.Code.permissionFailure, .atomicFailure, .authenticationFailed, .authenticationRequired, .badRequest,
            .limitExceeded, .changeTokenExpired, .serverRecordChanged, .alreadyExists, .internalError, .unknownItem, .quotaExceeded,
            .requestRateLimited, .serviceUnavailable, .referenceViolation, .zoneNotFound,
        ]
    )
    func roundTrip(code: NimbusError.Code) {
        #expect(NimbusError.Code(serverErrorCode: code.serverErrorCode, nimbusErrorCode: code.nimbusErrorCode) == code)
    }

    @Test("CloudKit's alias UNKNOWN_ITEM is unknownItem; a code nobody knows is an internal error")
    func aliasesAndUnknown() {
        #expect(NimbusError.Code(serverErrorCode: "UNKNOWN_ITEM") == .unknownItem)
        #expect(NimbusError.Code(serverErrorCode: "SOMETHING_NEW") == .internalError)
        #expect(NimbusError.Code(serverErrorCode: "BAD_REQUEST", nimbusErrorCode: "SOMETHING_NEW") == .badRequest)
    }
}
