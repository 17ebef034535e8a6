//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

/// A position in a JSON document, and the grammar read from it: values as ``JSONValue`` trees,
/// or piece by piece (an object's keys, one string, one integer, a skipped value) by readers that
/// build their own types straight from the bytes, as ``RecordWireDecoder`` does.
///
/// The bytes are borrowed: a cursor lives inside the `withUnsafeBufferPointer` that made it.
package struct JSONCursor {
    /// Why a document is not valid JSON, with the byte offset.
    package struct Failure: Error, CustomStringConvertible {
        package var message: String
        package var offset: Int
        package var description: String { "\(message) at byte \(offset)" }
    }

    /// How deep arrays and objects may nest, so hostile input cannot exhaust the stack.
    package static let maximumDepth = 64

    package let bytes: UnsafeBufferPointer<UInt8>
    /// The offset of the next byte to read.
    package var index: Int
    private var depth = 0

    package init(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int = 0) {
        self.bytes = bytes
        self.index = index
    }

    /// Whether only whitespace is left.
    package mutating func isAtEnd() -> Bool {
        skipWhitespace()
        return index == bytes.count
    }

    // MARK: - Values as trees

    /// Reads the value at the cursor (after any whitespace) as a tree.
    package mutating func value() throws(Failure) -> JSONValue {
        skipWhitespace()
        guard index < bytes.count else { throw failure("unexpected end of JSON") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try object()
        case UInt8(ascii: "["): return try array()
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): return try literal("true", .bool(true))
        case UInt8(ascii: "f"): return try literal("false", .bool(false))
        case UInt8(ascii: "n"): return try literal("null", .null)
        default: return try number()
        }
    }

    private mutating func object() throws(Failure) -> JSONValue {
        try beginObject()
        // Most objects of the protocol have a few members: one allocation holds them.
        var members = JSONObject(capacity: 6)
        while let key = try nextKey() {
            members[try string(of: key)] = try value()
        }
        return .object(members)
    }

    private mutating func array() throws(Failure) -> JSONValue {
        try beginArray()
        var elements: [JSONValue] = []
        while try nextElement() {
            elements.append(try value())
        }
        return .array(elements)
    }

    // MARK: - Reading piece by piece

    /// Where a string's bytes are, between its quotes: a member's key, or a string read with
    /// ``stringSpan()``.
    package struct StringSpan {
        package var start: Int
        package var end: Int
        /// Whether the string has escapes, so its bytes are not its text.
        package var isEscaped: Bool
    }

    /// Reads the `{` of an object.
    package mutating func beginObject() throws(Failure) {
        try begin(UInt8(ascii: "{"), else: "expected an object")
    }

    /// Reads the next member's key and its `:`, or the object's `}` (then `nil`).
    package mutating func nextKey() throws(Failure) -> StringSpan? {
        guard try moveToNext(closingWith: UInt8(ascii: "}"), else: "expected ',' or '}'") else { return nil }
        skipWhitespace()
        guard peek(UInt8(ascii: "\"")) else { throw failure("expected a string key") }
        let key = try scanString()
        skipWhitespace()
        guard peek(UInt8(ascii: ":")) else { throw failure("expected ':'") }
        index += 1
        return key
    }

    /// Reads the `[` of an array.
    package mutating func beginArray() throws(Failure) {
        try begin(UInt8(ascii: "["), else: "expected an array")
    }

    /// Moves to the array's next element (`true`), or reads its `]` (`false`).
    package mutating func nextElement() throws(Failure) -> Bool {
        try moveToNext(closingWith: UInt8(ascii: "]"), else: "expected ',' or ']'")
    }

    /// Enters the container that `open` starts.
    private mutating func begin(_ open: UInt8, else message: String) throws(Failure) {
        skipWhitespace()
        guard peek(open) else { throw failure(message) }
        try enter()
        index += 1
        pendingFirst = true
    }

    /// Reads the comma before the container's next member or element (`true`), or the byte that
    /// closes it, leaving it (`false`).
    private mutating func moveToNext(closingWith close: UInt8, else message: String) throws(Failure) -> Bool {
        skipWhitespace()
        let isFirst = pendingFirst
        pendingFirst = false
        if peek(close) {
            index += 1
            depth -= 1
            return false
        }
        if isFirst { return true }
        guard peek(UInt8(ascii: ",")) else { throw failure(message) }
        index += 1
        return true
    }

    /// Set by `beginObject` and `beginArray`: the next member or element is the first (no comma).
    /// Nested containers are read to their end before the outer one moves on, so one flag serves.
    private var pendingFirst = false

    /// Whether a key is exactly `name` (an escaped key never is: readers treat it as unknown).
    package func key(_ key: StringSpan, is name: StaticString) -> Bool {
        guard !key.isEscaped, key.end - key.start == name.utf8CodeUnitCount else { return false }
        return name.withUTF8Buffer { expected in
            var offset = 0
            while offset < expected.count {
                if bytes[key.start + offset] != expected[offset] { return false }
                offset += 1
            }
            return true
        }
    }

    /// A key's text.
    package func string(of key: StringSpan) throws(Failure) -> String {
        if !key.isEscaped { return String(decoding: UnsafeBufferPointer(rebasing: bytes[key.start..<key.end]), as: UTF8.self) }
        var reader = JSONCursor(bytes, at: key.start - 1)
        return try reader.string()
    }

    /// The next byte after whitespace, without reading it: what kind of value comes.
    package mutating func peekByte() -> UInt8? {
        skipWhitespace()
        return index < bytes.count ? bytes[index] : nil
    }

    /// Reads a string value.
    package mutating func string() throws(Failure) -> String {
        skipWhitespace()
        guard peek(UInt8(ascii: "\"")) else { throw failure("expected a string") }
        let start = index
        let scanned = try scanString()
        if !scanned.isEscaped {
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[scanned.start..<scanned.end]), as: UTF8.self)
        }
        index = start + 1
        return try unescapedString()
    }

    /// Reads a string value without making its text: where its bytes are.
    package mutating func stringSpan() throws(Failure) -> StringSpan {
        skipWhitespace()
        guard peek(UInt8(ascii: "\"")) else { throw failure("expected a string") }
        return try scanString()
    }

    /// Reads an integer that JSON writes without fraction or exponent and that fits 64 bits, or
    /// returns `nil` and reads nothing.
    package mutating func integer() -> Int64? {
        skipWhitespace()
        var position = index
        let isNegative = position < bytes.count && bytes[position] == UInt8(ascii: "-")
        if isNegative { position += 1 }
        let digitsStart = position
        var value: Int64 = 0
        while position < bytes.count, isDigit(bytes[position]) {
            let digit = Int64(bytes[position] &- UInt8(ascii: "0"))
            // Accumulated negatively, so Int64.min fits.
            let (times10, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (next, overflow2) = times10.subtractingReportingOverflow(digit)
            guard !overflow1, !overflow2 else { return nil }
            value = next
            position += 1
        }
        let digitCount = position - digitsStart
        guard digitCount > 0, digitCount == 1 || bytes[digitsStart] != UInt8(ascii: "0") else { return nil }
        if position < bytes.count {
            switch bytes[position] {
            case UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E"): return nil
            default: break
            }
        }
        if !isNegative {
            guard value != .min else { return nil }
            value = -value
        }
        index = position
        return value
    }

    /// Reads `true` or `false`, or returns `nil` and reads nothing.
    package mutating func bool() -> Bool? {
        skipWhitespace()
        if matches("true") {
            index += 4
            return true
        }
        if matches("false") {
            index += 5
            return false
        }
        return nil
    }

    /// Reads past the value at the cursor if its bytes are `value`: the bytes of a whole object
    /// or array read before. Such a value ends where its bytes end, so bytes that start with
    /// them are that value, and reading them again would give what it gave the first time.
    /// (A number has no such end: `1` starts `12`.) Returns `false`, with the cursor moved past
    /// whitespace only, when they differ or `value` is empty.
    package mutating func skipRepeated(_ value: [UInt8]) -> Bool {
        precondition(value.isEmpty || value.first == UInt8(ascii: "{") || value.first == UInt8(ascii: "["), "not an object or array")
        skipWhitespace()
        guard !value.isEmpty else { return false }
        let matches = value.withUnsafeBufferPointer { value in
            ByteRuns.hasPrefix(UnsafeBufferPointer(rebasing: bytes[index...]), value)
        }
        if matches { index += value.count }
        return matches
    }

    /// Reads past the value at the cursor, checking it is well formed.
    package mutating func skipValue() throws(Failure) {
        skipWhitespace()
        guard index < bytes.count else { throw failure("unexpected end of JSON") }
        switch bytes[index] {
        case UInt8(ascii: "{"):
            try beginObject()
            while try nextKey() != nil { try skipValue() }
        case UInt8(ascii: "["):
            try beginArray()
            while try nextElement() { try skipValue() }
        case UInt8(ascii: "\""):
            let start = index
            if try scanString().isEscaped {
                // Escapes are checked by reading them.
                index = start + 1
                _ = try unescapedString()
            }
        default:
            _ = try value()
        }
    }

    // MARK: - Scalars

    /// Reads past a string whose opening quote is at the cursor, and returns where its bytes are.
    /// Escapes are not checked here: a string with any is read again by `unescapedString`.
    private mutating func scanString() throws(Failure) -> StringSpan {
        index += 1
        let start = index
        var isEscaped = false
        // Eight bytes at a time while none of them is a quote, a backslash or a control
        // character: most strings are read whole this way.
        index += JSONStringBytes.plainPrefixLength(of: UnsafeBufferPointer(rebasing: bytes[index...]))
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                index += 1
                return StringSpan(start: start, end: index - 1, isEscaped: isEscaped)
            }
            if byte == UInt8(ascii: "\\") {
                isEscaped = true
                index += 2
                continue
            }
            if byte < 0x20 { throw failure("control character in string") }
            index += 1
        }
        throw failure("unfinished string")
    }

    /// Reads the rest of a string with escapes, from just after its opening quote.
    private mutating func unescapedString() throws(Failure) -> String {
        var scalars: [UInt8] = []
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                return String(decoding: scalars, as: UTF8.self)
            case UInt8(ascii: "\\"):
                index += 1
                guard index < bytes.count else { throw failure("unfinished escape") }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scalars.append(escape)
                case UInt8(ascii: "b"): scalars.append(0x08)
                case UInt8(ascii: "f"): scalars.append(0x0c)
                case UInt8(ascii: "n"): scalars.append(0x0a)
                case UInt8(ascii: "r"): scalars.append(0x0d)
                case UInt8(ascii: "t"): scalars.append(0x09)
                case UInt8(ascii: "u"):
                    var code = try hex4()
                    if (0xD800..<0xDC00).contains(code) {
                        guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                            throw failure("unpaired surrogate")
                        }
                        index += 2
                        let low = try hex4()
                        guard (0xDC00..<0xE000).contains(low) else { throw failure("unpaired surrogate") }
                        code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                    }
                    guard let scalar = Unicode.Scalar(code) else { throw failure("invalid unicode escape") }
                    scalars.append(contentsOf: Array(String(Character(scalar)).utf8))
                default: throw failure("invalid escape")
                }
            default:
                if byte < 0x20 { throw failure("control character in string") }
                scalars.append(byte)
                index += 1
            }
        }
        throw failure("unfinished string")
    }

    private mutating func number() throws(Failure) -> JSONValue {
        if let integer = integer() { return .integer(integer) }
        let start = index
        if peek(UInt8(ascii: "-")) { index += 1 }
        guard index < bytes.count, isDigit(bytes[index]) else { throw failure("unexpected character") }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
        } else {
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if peek(UInt8(ascii: ".")) {
            index += 1
            guard index < bytes.count, isDigit(bytes[index]) else { throw failure("expected digits after '.'") }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if peek(UInt8(ascii: "e")) || peek(UInt8(ascii: "E")) {
            index += 1
            if peek(UInt8(ascii: "+")) || peek(UInt8(ascii: "-")) { index += 1 }
            guard index < bytes.count, isDigit(bytes[index]) else { throw failure("expected exponent digits") }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        // What `integer()` did not take: a fraction, an exponent, or an integer too large for
        // 64 bits, which is read as a double.
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        // Swift reads "1e999" as infinity; JSON has no infinities, and neither do fields.
        guard let double = Double(text), double.isFinite else { throw failure("number out of range") }
        return .double(double)
    }

    // MARK: - Helpers

    private mutating func literal(_ word: StaticString, _ value: JSONValue) throws(Failure) -> JSONValue {
        guard matches(word) else {
            throw failure(index + word.utf8CodeUnitCount > bytes.count ? "unexpected end of JSON" : "unexpected character")
        }
        index += word.utf8CodeUnitCount
        return value
    }

    private func matches(_ word: StaticString) -> Bool {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count else { return false }
        return word.withUTF8Buffer { expected in bytes[index..<index + count].elementsEqual(expected) }
    }

    private mutating func hex4() throws(Failure) -> UInt32 {
        guard index + 4 <= bytes.count else { throw failure("unfinished unicode escape") }
        var value: UInt32 = 0
        for byte in bytes[index..<index + 4] {
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
            default: throw failure("invalid unicode escape")
            }
            value = value << 4 | digit
        }
        index += 4
        return value
    }

    private mutating func enter() throws(Failure) {
        depth += 1
        if depth > Self.maximumDepth { throw failure("JSON nested deeper than \(Self.maximumDepth) levels") }
    }

    private func peek(_ byte: UInt8) -> Bool {
        index < bytes.count && bytes[index] == byte
    }

    private func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0a, 0x0d: index += 1
            default: return
            }
        }
    }

    package func failure(_ message: String) -> Failure {
        Failure(message: message, offset: index)
    }
}
