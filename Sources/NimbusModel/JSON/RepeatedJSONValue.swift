//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

/// The last value a reader made of a JSON object, and that object's bytes: when the next
/// object at the same place has the same bytes, the reader takes the value again instead of
/// reading it (``JSONCursor/skipRepeated(_:)``). The records of a response mostly share their
/// zone and, when saved together, their `created` and `modified` stamps.
struct RepeatedJSONValue<Value> {
    private var bytes: [UInt8] = []
    private var value: Value?

    /// The value again if the object at the cursor repeats the last one's bytes, with the
    /// cursor past it; otherwise `nil` and the cursor at the object, past any whitespace (so a
    /// reader's `start` is where the object's bytes begin).
    func take(at cursor: inout JSONCursor) -> Value? {
        // With nothing remembered the bytes are empty: no match, whitespace skipped all the same.
        guard cursor.skipRepeated(bytes), let value else { return nil }
        return value
    }

    /// Keeps `value`, read from the bytes the cursor moved over since `start`. The buffer is
    /// reused: objects that differ every time (a change feed's stamps) cost no allocation each.
    mutating func remember(_ value: Value, readFrom start: Int, to cursor: JSONCursor) {
        self.value = value
        bytes.removeAll(keepingCapacity: true)
        bytes.append(contentsOf: UnsafeBufferPointer(rebasing: cursor.bytes[start..<cursor.index]))
    }
}
