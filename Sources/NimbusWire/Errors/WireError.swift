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
    public var uuid: String
    public var serverErrorCode: String
    public var reason: String
    /// Seconds to wait before retrying; absent means "do not retry".
    public var retryAfter: Int?
    public var redirectURL: String?
    public var recordName: String?
    public var zoneID: ZoneID?
    public var serverRecord: Record?

    /// Creates the dictionary of an error.
    public init(_ error: NimbusError, uuid: String, redirectURL: String? = nil) {
        self.uuid = uuid
        serverErrorCode = error.code.serverErrorCode
        reason = error.reason
        retryAfter = error.retryAfter.map { Int($0.components.seconds) + ($0.components.attoseconds > 0 ? 1 : 0) }
        self.redirectURL = redirectURL
        serverRecord = error.serverRecord
    }

    package func write(to writer: inout JSONWriter, options: WireOptions) {
        writer.beginObject()
        if let recordName { writer.field("recordName", recordName) }
        if let zoneID {
            writer.key("zoneID")
            WireZoneID(zoneID).write(to: &writer, options: options)
        }
        writer.field("uuid", uuid)
        writer.field("serverErrorCode", serverErrorCode)
        writer.field("reason", reason)
        if let retryAfter { writer.field("retryAfter", Int64(retryAfter)) }
        if let redirectURL { writer.field("redirectURL", redirectURL) }
        if let serverRecord {
            writer.key("serverRecord")
            WireRecord(serverRecord, desiredKeys: nil).write(to: &writer, options: options)
        }
        writer.endObject()
    }
}
