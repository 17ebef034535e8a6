//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

/// Writes JSON straight into a byte buffer.
///
/// Responses and stored field documents are written on every request; `JSONEncoder` spends most
/// of its time in generic `Codable` machinery for them, so the hot shapes are written by hand
/// with this writer. Callers write keys and values in order; the writer adds the commas.
package struct JSONWriter {
    package private(set) var bytes: [UInt8] = []
    /// Whether the next value in the current container needs a comma before it.
    private var needsComma = false

    package init(capacity: Int = 512) {
        bytes.reserveCapacity(capacity)
    }

    package mutating func beginObject() {
        separate()
        bytes.append(UInt8(ascii: "{"))
        needsComma = false
    }

    package mutating func endObject() {
        bytes.append(UInt8(ascii: "}"))
        needsComma = true
    }

    package mutating func beginArray() {
        separate()
        bytes.append(UInt8(ascii: "["))
        needsComma = false
    }

    package mutating func endArray() {
        bytes.append(UInt8(ascii: "]"))
        needsComma = true
    }

    /// Writes an object key the code spells out (`"recordName"`); the next call writes its value.
    ///
    /// The protocol's keys are plain ASCII: their bytes are copied as they are, without the scan
    /// for characters to escape that a run-time string needs (a 200-record response writes
    /// thousands of keys).
    package mutating func key(_ name: StaticString) {
        separate()
        name.withUTF8Buffer { name in
            assert(name.allSatisfy { $0 >= 0x20 && $0 < 0x80 && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") })
            bytes.append(UInt8(ascii: "\""))
            bytes.append(contentsOf: name)
        }
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
        needsComma = false
    }

    /// Writes an object key made at run time (a field's name), escaping what JSON needs escaped;
    /// the next call writes its value.
    package mutating func key(escaping name: String) {
        separate()
        appendString(name)
        bytes.append(UInt8(ascii: ":"))
        needsComma = false
    }

    package mutating func string(_ value: String) {
        separate()
        appendString(value)
        needsComma = true
    }

    package mutating func integer(_ value: Int64) {
        separate()
        // Digits straight into the buffer: `String(value)` formats through generic code and
        // makes a string first, and responses hold an integer or more per record (timestamps).
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var start = digits.count
            repeat {
                start -= 1
                digits[start] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: digits[start...]))
        }
        needsComma = true
    }

    package mutating func double(_ value: Double) {
        separate()
        // JSON has no infinities or NaN; they cannot arrive in JSON input either.
        bytes.append(contentsOf: (value.isFinite ? String(value) : "null").utf8)
        needsComma = true
    }

    package mutating func bool(_ value: Bool) {
        separate()
        bytes.append(contentsOf: (value ? "true" : "false").utf8)
        needsComma = true
    }

    package mutating func null() {
        separate()
        bytes.append(contentsOf: "null".utf8)
        needsComma = true
    }

    /// Writes `"name": "value"`.
    package mutating func field(_ name: StaticString, _ value: String) {
        key(name)
        string(value)
    }

    /// Writes `"name": value` for an integer.
    package mutating func field(_ name: StaticString, _ value: Int64) {
        key(name)
        integer(value)
    }

    /// Writes `"name": true` or `"name": false`.
    package mutating func field(_ name: StaticString, _ value: Bool) {
        key(name)
        bool(value)
    }

    /// Writes `"name": ["a", "b"]`.
    package mutating func stringArray(_ name: StaticString, _ values: [String]) {
        key(name)
        beginArray()
        for value in values { string(value) }
        endArray()
    }

    private mutating func separate() {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
    }

    private mutating func appendString(_ value: String) {
        bytes.append(UInt8(ascii: "\""))
        // Most strings need no escaping: check the contiguous UTF-8 with a plain loop (the
        // generic `contains(where:)` over a UTF8View cost more than the rest of a record) and
        // copy it whole.
        var value = value
        let isClean = value.withUTF8 { buffer in
            let plain = JSONStringBytes.plainPrefixLength(of: buffer)
            for byte in buffer[plain...] where byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
                return false
            }
            bytes.append(contentsOf: buffer)
            return true
        }
        if isClean {
            bytes.append(UInt8(ascii: "\""))
            return
        }
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case UInt8(ascii: "\n"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case UInt8(ascii: "\r"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case UInt8(ascii: "\t"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0")])
                bytes.append(hex[Int(byte >> 4)])
                bytes.append(hex[Int(byte & 0x0f)])
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
