//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

package import NimbusModel

/// `notifications/inbox` (a Nimbus extension): a page of the caller's inbox after a sequence
/// number. Both members are optional, and so is the body: from the start of what the inbox
/// holds, 100 entries.
public struct NotificationInboxRequest: WireRequestBody {
    /// The most entries a page may ask for.
    public static let maximumLimit = 200
    /// The entries a page without a limit gets.
    public static let defaultLimit = 100

    /// The sequence number after which the page starts.
    public var after: Int64
    /// The most entries to return, 1 to ``maximumLimit``.
    public var limit: Int

    /// A request for the page after `after`.
    public init(after: Int64 = 0, limit: Int = Self.defaultLimit) {
        self.after = after
        self.limit = limit
    }

    package init(json: JSONValue) throws(NimbusError) {
        let members = try json.object(at: "the body")
        after = 0
        limit = Self.defaultLimit
        if let value = members.optional("after") {
            after = try value.integer(at: "after")
            guard after >= 0 else { throw .badRequest("after must not be negative") }
        }
        if let value = members.optional("limit") {
            let requested = try value.integer(at: "limit")
            guard (1...Int64(Self.maximumLimit)).contains(requested) else {
                throw .badRequest("limit must be between 1 and \(Self.maximumLimit), not \(requested)")
            }
            limit = Int(requested)
        }
    }

    /// Parses a body that may be empty.
    package static func parseAllowingEmpty(_ body: [UInt8]) throws(NimbusError) -> Self {
        body.isEmpty ? Self() : try parse(body)
    }

    package func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.field("after", after)
        writer.field("limit", Int64(limit))
        writer.endObject()
    }
}
