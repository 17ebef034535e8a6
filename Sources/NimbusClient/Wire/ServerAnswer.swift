//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusModel

/// Reads a server's answer with a reader of `NimbusWire`: an answer that reader refuses is the
/// server's fault, so the caller sees an internal error naming what was wrong, not the
/// `BAD_REQUEST` a server tells a client.
func serverAnswer<Answer>(_ read: () throws(NimbusError) -> Answer) throws(NimbusError) -> Answer {
    do {
        return try read()
    } catch  where error.code == .badRequest {
        throw NimbusError(.internalError, "the server's answer is malformed: \(error.reason)")
    }
}
