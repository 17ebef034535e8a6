//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusModel

/// The error dictionaries of the wire protocol, read from responses. (Records and zone IDs are
/// ``RecordWireCoding``'s.)
enum RecordJSON {
    /// Whether a dictionary of a result array is an error rather than a result.
    static func isError(_ json: JSONValue) -> Bool {
        if case .object(let members) = json { return members["serverErrorCode"] != nil }
        return false
    }

    /// Reads an error dictionary: a whole failed response's body, or one item of a result array.
    static func error(_ json: JSONValue, in zoneID: ZoneID? = nil) -> NimbusError {
        guard case .object(let members) = json, case .string(let serverCode)? = members["serverErrorCode"] else {
            return NimbusError(.internalError, "the server answered with an error the SDK cannot read")
        }
        var reason = ""
        if case .string(let text)? = members["reason"] { reason = text }
        var finer: String?
        if case .string(let text)? = members["nimbusErrorCode"] { finer = text }
        var error = NimbusError(NimbusError.Code(serverErrorCode: serverCode, nimbusErrorCode: finer), reason)
        if let seconds = members["retryAfter"].flatMap(\.doubleValue) { error.retryAfter = .milliseconds(Int64(seconds * 1000)) }
        if let serverRecord = members["serverRecord"] {
            let fallback = zoneID ?? ZoneID(zoneName: ZoneID.defaultZoneName, ownerRecordName: "")
            error.serverRecord = try? RecordWireCoding.record(serverRecord, in: fallback, at: "serverRecord")
        }
        return error
    }
}
