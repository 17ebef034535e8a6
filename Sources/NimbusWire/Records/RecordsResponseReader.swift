//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

package import NimbusModel

/// The reading side of ``RecordsResponse`` and ``ZoneFeedPage``, for the SDK: a response with a
/// `records` array (`records/modify`, `lookup`, `query`, `changes`), read with the records built
/// straight from the bytes (``RecordWireDecoder``, the one byte-level record reader).
///
/// Items the decoder does not take, such as errors, tombstones and shares, are kept as JSON
/// for the caller to read as before; so are the other members (`syncToken`,
/// `continuationMarker`, ...).
///
/// Records are kept in an array of their own and moved out one by one (``takeRecord(at:)``):
/// a record is a large value, and an enum of record or JSON made the optimizer copy each one
/// out of its case and destroy the original, a retain and a release for every string and
/// dictionary of every record.
package struct RecordsResponseReader {
    /// How many items the `records` array has, or `nil` when the response has none.
    package private(set) var count: Int?
    /// The records read from the bytes, by position; an empty record where ``jsonItems`` holds
    /// the item.
    private var records: [Record] = []
    /// The items kept as JSON, by position.
    private var jsonItems: [Int: JSONValue] = [:]
    /// The response's other members.
    package var members = JSONObject()

    /// Reads a response body.
    /// - Parameters:
    ///   - zoneID: the zone of a record whose dictionary names none.
    ///   - expectedCount: how many items the caller expects, to size the records once.
    /// The most records a response of the protocol holds (a request's 200 operations or results).
    private static let maximumRecords = 200

    package init(_ body: [UInt8], in zoneID: ZoneID, expectedCount: Int = 0) throws(NimbusError) {
        let read = body.withUnsafeBufferPointer { buffer in
            Result { () throws(JSONCursor.Failure) -> RecordsResponseReader in
                var response = RecordsResponseReader()
                var cursor = JSONCursor(buffer)
                var decoder = RecordWireDecoder()
                try cursor.beginObject()
                while let key = try cursor.nextKey() {
                    let name = try cursor.string(of: key)
                    guard name == "records", cursor.peekByte() == UInt8(ascii: "[") else {
                        if name == "records" { response.clearItems() }
                        response.members[name] = try cursor.value()
                        continue
                    }
                    response.clearItems()
                    // Bounded: the expectation may come from a caller's limit.
                    response.records.reserveCapacity(min(expectedCount, Self.maximumRecords))
                    var count = 0
                    try cursor.beginArray()
                    while try cursor.nextElement() {
                        if let record = decoder.record(at: &cursor, in: zoneID) {
                            response.records.append(record)
                        } else {
                            response.jsonItems[count] = try cursor.value()
                            response.records.append(Self.placeholder)
                        }
                        count += 1
                    }
                    response.count = count
                }
                guard cursor.isAtEnd() else { throw cursor.failure("unexpected text after the JSON value") }
                return response
            }
        }
        switch read {
        case .success(let response): self = response
        case .failure(let failure):
            throw NimbusError(.internalError, "the server's response is not valid JSON: \(failure)")
        }
    }

    private init() {}

    /// A query page's `continuationMarker` (see ``RecordsResponse``): where the next page starts.
    package var continuationMarker: String? {
        if case .string(let marker)? = members["continuationMarker"] { return marker }
        return nil
    }

    /// The number of items of the `records` array.
    /// - Throws: when the response has no `records` array.
    package func requireCount() throws(NimbusError) -> Int {
        guard let count else { throw NimbusError(.internalError, "the server's response has no records array") }
        return count
    }

    /// The item at `index` when it was kept as JSON (an error, a tombstone, a share, or a
    /// dictionary the decoder leaves to the tree reader); `nil` when it is a record.
    package func json(at index: Int) -> JSONValue? {
        jsonItems.isEmpty ? nil : jsonItems[index]
    }

    /// Moves the record at `index` out of the response, leaving an empty one in its place.
    /// Only for an index whose ``json(at:)`` is `nil`.
    package mutating func takeRecord(at index: Int) -> Record {
        var taken = Self.placeholder
        swap(&taken, &records[index])
        return taken
    }

    /// Changes the record at `index` where it lies (see ``takeRecord(at:)``).
    package mutating func updateRecord(at index: Int, _ update: (inout Record) -> Void) {
        update(&records[index])
    }

    /// A record of empty strings and collections: nothing to allocate, retain or release.
    private static var placeholder: Record {
        let nobody = ChangeStamp(timestamp: 0, userRecordName: "", deviceID: "")
        return Record(
            recordID: RecordID(recordName: "", zoneID: ZoneID(zoneName: "", ownerRecordName: "")),
            recordType: "",
            created: nobody,
            modified: nobody
        )
    }

    /// Forgets items read from an earlier `records` member: the last one wins, as in a tree.
    private mutating func clearItems() {
        count = nil
        records = []
        jsonItems = [:]
    }
}
