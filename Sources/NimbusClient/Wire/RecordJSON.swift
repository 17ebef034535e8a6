//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusModel

/// The client's side of the wire's dictionaries: records and zone IDs (``RecordWireCoding``), and
/// error dictionaries.
enum RecordJSON {
    static func write(_ record: Record, to writer: inout JSONWriter, includingSystemFields: Bool = false) {
        RecordWireCoding.write(record, to: &writer, includingSystemFields: includingSystemFields)
    }

    static func write(_ zoneID: ZoneID, to writer: inout JSONWriter) {
        RecordWireCoding.write(zoneID, to: &writer)
    }

    static func record(_ json: JSONValue, in zoneID: ZoneID, at path: @autoclosure () -> String) throws(NimbusError) -> Record {
        try RecordWireCoding.record(json, in: zoneID, at: path())
    }

    static func zoneID(_ json: JSONValue, at path: String) throws(NimbusError) -> ZoneID {
        try RecordWireCoding.zoneID(json, at: path)
    }

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
        var code = ErrorCodes.code(serverErrorCode: serverCode)
        if case .string(let finer)? = members["nimbusErrorCode"], let refined = ErrorCodes.code(nimbusErrorCode: finer) {
            code = refined
        }
        var error = NimbusError(code, reason)
        if let seconds = members["retryAfter"].flatMap(\.doubleValue) { error.retryAfter = .milliseconds(Int64(seconds * 1000)) }
        if let serverRecord = members["serverRecord"] {
            let fallback = zoneID ?? ZoneID(zoneName: ZoneID.defaultZoneName, ownerRecordName: "")
            error.serverRecord = try? record(serverRecord, in: fallback, at: "serverRecord")
        }
        return error
    }
}
