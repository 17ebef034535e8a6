//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Logging
import NimbusModel
import NimbusStore
import Testing

@testable import NimbusEngine

@Suite("store failures as clients see them")
struct StoreErrorMappingTests {
    private let logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })

    @Test("a database that failed says when to try again: nothing was written")
    func databaseFailure() {
        let error = StoreError(.database, detail: "PostgreSQL connection refused").nimbusError(logger: logger)
        #expect(error.code == .serviceUnavailable)
        #expect(error.retryAfter == .seconds(1))
        #expect(!error.reason.contains("PostgreSQL"), "driver detail stays in the log")
    }

    @Test("a commit that got no answer gives no retryAfter, so a client does not send a write that may be done again")
    func unknownOutcome() {
        let error = StoreError(.outcomeUnknown, detail: "COMMIT got no answer").nimbusError(logger: logger)
        #expect(error.code == .serviceUnavailable)
        #expect(error.retryAfter == nil)
        #expect(error.reason.contains("may or may not"))
    }

    @Test("a broken NOT NULL or CHECK constraint is the server's defect: an internal error, not a duplicate")
    func constraintViolation() {
        let error = NimbusError.fromStore(StoreError(.constraintViolation, detail: "NOT NULL constraint failed"), logger: logger)
        #expect(error.code == .internalError)
        #expect(!error.reason.contains("NOT NULL"), "driver detail stays in the log")
    }

    @Test("a unique violation is alreadyExists, and an error the engine raised passes through unchanged")
    func passThrough() {
        #expect(NimbusError.fromStore(StoreError(.alreadyExists, driverCode: .sqlite(2067)), logger: logger).code == .alreadyExists)
        let own = NimbusError(.zoneNotFound, "zone not found")
        #expect(NimbusError.fromStore(own, logger: logger) == own)
    }
}
