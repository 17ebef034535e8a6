//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

package import NimbusModel

extension WireError {
    /// Whether a dictionary of an answer's array is an error rather than a result.
    package static func isError(_ json: JSONValue) -> Bool {
        if case .object(let members) = json { return members["serverErrorCode"] != nil }
        return false
    }

    /// Reads an error dictionary, as ``write(to:options:)`` writes it, into the error a client
    /// sees: a whole failed response's body, or one item of a result array.
    /// - Parameter zoneID: the zone of a `serverRecord` that names none.
    package static func nimbusError(from json: JSONValue, in zoneID: ZoneID? = nil) -> NimbusError {
        guard case .object(let members) = json, case .string(let serverCode)? = members["serverErrorCode"] else {
            return NimbusError(.internalError, "the server answered with an error the SDK cannot read")
        }
        var reason = ""
        if case .string(let text)? = members["reason"] { reason = text }
        var finer: String?
        if case .string(let text)? = members["nimbusErrorCode"] { finer = text }
        var error = NimbusError(NimbusError.Code(serverErrorCode: serverCode, nimbusErrorCode: finer), reason)
        // Seconds; a proxy may send a fraction.
        if let seconds = members["retryAfter"].flatMap(\.doubleValue) { error.retryAfter = .milliseconds(Int64(seconds * 1000)) }
        if let serverRecord = members["serverRecord"] {
            let fallback = zoneID ?? ZoneID(zoneName: ZoneID.defaultZoneName, ownerRecordName: "")
            error.serverRecord = try? RecordWireCoding.record(serverRecord, in: fallback, at: "serverRecord")
        }
        return error
    }
}

extension WireError {
    /// Reads an error dictionary of an answer's array (see ``nimbusError(from:in:)``), keeping
    /// the item it is about.
    package init(json: JSONValue, in zoneID: ZoneID? = nil) {
        var uuid = ""
        var redirectURL: String?
        if case .object(let members) = json {
            if case .string(let text)? = members["uuid"] { uuid = text }
            if case .string(let text)? = members["redirectURL"] { redirectURL = text }
        }
        self.init(Self.nimbusError(from: json, in: zoneID), uuid: uuid, redirectURL: redirectURL)
        guard case .object(let members) = json else { return }
        if case .string(let text)? = members["recordName"] { recordName = text }
        if case .string(let text)? = members["subscriptionID"] { subscriptionID = text }
        if case .string(let text)? = members["shortGUID"] { shortGUID = text }
        if let zone = members["zoneID"] { self.zoneID = try? RecordWireCoding.zoneID(zone, at: "zoneID") }
    }

    /// The error a client sees.
    package var nimbusError: NimbusError {
        var error = NimbusError(NimbusError.Code(serverErrorCode: serverErrorCode, nimbusErrorCode: nimbusErrorCode), reason)
        error.retryAfter = retryAfter.map { .seconds($0) }
        error.serverRecord = serverRecord
        return error
    }
}
