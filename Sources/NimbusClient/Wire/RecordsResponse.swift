//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusModel

/// A response with a `records` array (`records/modify`, `lookup`, `query`, `changes`), read
/// with the records built straight from the bytes (``RecordWireDecoder``).
///
/// Items the decoder does not take, such as errors, tombstones and shares, are kept as JSON
/// for the caller to read as before; so are the other members (`syncToken`,
/// `continuationMarker`, ...).
struct RecordsResponse {
    /// One item of the `records` array.
    enum Item {
        case record(Record)
        case json(JSONValue)
    }

    /// The `records` array, or `nil` when the response has none.
    var items: [Item]?
    /// The response's other members.
    var members = JSONObject()

    /// Reads a response body.
    /// - Parameter zoneID: the zone of a record whose dictionary names none.
    init(_ body: [UInt8], in zoneID: ZoneID) throws(NimbusError) {
        let read = body.withUnsafeBufferPointer { buffer in
            Result { () throws(JSONCursor.Failure) -> (items: [Item]?, members: JSONObject) in
                var cursor = JSONCursor(buffer)
                var decoder = RecordWireDecoder()
                var items: [Item]?
                var members = JSONObject()
                try cursor.beginObject()
                while let key = try cursor.nextKey() {
                    let name = try cursor.string(of: key)
                    guard name == "records", cursor.peekByte() == UInt8(ascii: "[") else {
                        if name == "records" { items = nil }
                        members[name] = try cursor.value()
                        continue
                    }
                    var array: [Item] = []
                    try cursor.beginArray()
                    while try cursor.nextElement() {
                        if let record = decoder.record(at: &cursor, in: zoneID) {
                            array.append(.record(record))
                        } else {
                            array.append(.json(try cursor.value()))
                        }
                    }
                    items = array
                }
                guard cursor.isAtEnd() else { throw cursor.failure("unexpected text after the JSON value") }
                return (items, members)
            }
        }
        switch read {
        case .success(let (items, members)):
            self.items = items
            self.members = members
        case .failure(let failure):
            throw NimbusError(.internalError, "the server's response is not valid JSON: \(failure)")
        }
    }

    /// The `records` array.
    func requireItems() throws(NimbusError) -> [Item] {
        guard let items else { throw NimbusError(.internalError, "the server's response has no records array") }
        return items
    }

    /// Takes the `records` array out of the response, so the caller holds its only reference
    /// and can move records out of it without copying the array.
    mutating func takeItems() throws(NimbusError) -> [Item] {
        let taken = try requireItems()
        items = nil
        return taken
    }
}
