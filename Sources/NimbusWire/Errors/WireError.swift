//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import NimbusModel

/// An error dictionary: the whole body of a failed request, or one element of a result array.
///
/// Always carries `uuid`, `serverErrorCode` and `reason` (CloudyKit only recognises errors with
/// all three). Per-item errors also carry the item's identity key, and a `CONFLICT` carries the
/// server's record as `serverRecord`.
public struct WireError: WireResponse {
    /// The error's unique ID; for a whole-request error, the request's `X-Apple-Request-UUID`.
    public var uuid: String
    /// One of CloudKit's documented codes, such as `NOT_FOUND` or `CONFLICT`.
    public var serverErrorCode: String
    /// A human-readable explanation.
    public var reason: String
    /// Seconds to wait before retrying; absent means "do not retry".
    public var retryAfter: Int?
    /// The sign-in page, only with `AUTHENTICATION_REQUIRED`.
    public var redirectURL: String?
    /// The record a per-record error is about.
    public var recordName: String?
    /// For a per-subscription error, the subscription it is about.
    public var subscriptionID: String?
    /// The zone a per-zone error is about.
    public var zoneID: ZoneID?
    /// The share a `records/resolve` or `records/accept` error is about.
    public var shortGUID: String?
    /// The server's current record, with a `CONFLICT`.
    public var serverRecord: Record?
    /// Nimbus's finer code where CloudKit's is shared by several (`BAD_REQUEST` covers an expired
    /// sync token and an exceeded limit): `CHANGE_TOKEN_EXPIRED` or `LIMIT_EXCEEDED`. An extra
    /// key, which CloudKit clients ignore and the Nimbus SDK reads.
    public var nimbusErrorCode: String?

    /// Creates the dictionary of an error.
    public init(_ error: NimbusError, uuid: String, redirectURL: String? = nil) {
        self.uuid = uuid
        serverErrorCode = error.code.serverErrorCode
        reason = error.reason
        retryAfter = error.retryAfter.map { Int($0.components.seconds) + ($0.components.attoseconds > 0 ? 1 : 0) }
        self.redirectURL = redirectURL
        serverRecord = error.serverRecord
        nimbusErrorCode = error.code.nimbusErrorCode
    }

    package func write(to writer: inout JSONWriter, options: WireOptions) {
        writer.beginObject()
        if let recordName { writer.field("recordName", recordName) }
        if let subscriptionID { writer.field("subscriptionID", subscriptionID) }
        if let shortGUID { writer.field("shortGUID", shortGUID) }
        if let zoneID {
            writer.key("zoneID")
            WireZoneID(zoneID).write(to: &writer, options: options)
        }
        writer.field("uuid", uuid)
        writer.field("serverErrorCode", serverErrorCode)
        writer.field("reason", reason)
        if let retryAfter { writer.field("retryAfter", Int64(retryAfter)) }
        if let redirectURL { writer.field("redirectURL", redirectURL) }
        if let nimbusErrorCode { writer.field("nimbusErrorCode", nimbusErrorCode) }
        if let serverRecord {
            writer.key("serverRecord")
            WireRecord(serverRecord, desiredKeys: nil).write(to: &writer, options: options)
        }
        writer.endObject()
    }
}
