//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusModel
import Testing

@Suite("skipping an object that repeats one read before")
struct JSONCursorRepeatTests {
    /// Whether the cursor skips `remembered` at the start of `text` (after `lead`), and where it
    /// ends up: past the object on a match, past the whitespace only otherwise.
    static func skip(_ remembered: String, in text: String) -> (skipped: Bool, index: Int) {
        let bytes = Array(text.utf8)
        return bytes.withUnsafeBufferPointer { buffer in
            var cursor = JSONCursor(buffer)
            let skipped = cursor.skipRepeated(Array(remembered.utf8))
            return (skipped, cursor.index)
        }
    }

    /// Objects of 2 to 25 bytes, so the comparison's words of eight and its tail both count.
    static let objects = (0...23).map { "{" + String(repeating: "a", count: $0) + "}" }

    @Test("the same bytes are skipped whole, whatever their length", arguments: objects)
    func sameBytes(object: String) {
        let result = Self.skip(object, in: "  " + object + ",1")
        #expect(result.skipped)
        #expect(result.index == 2 + object.utf8.count)
    }

    @Test("a change in any one byte is no match, and only the whitespace is read", arguments: objects.filter { $0.utf8.count > 2 })
    func oneByteDiffers(object: String) {
        let bytes = Array(object.utf8)
        for position in 1..<(bytes.count - 1) {
            var changed = bytes
            changed[position] = UInt8(ascii: "b")
            let result = Self.skip(object, in: " " + String(decoding: changed, as: UTF8.self))
            #expect(!result.skipped, "byte \(position) of \(object)")
            #expect(result.index == 1)
        }
    }

    @Test("nothing remembered, or more remembered than is left, is no match")
    func shortOrEmpty() {
        #expect(Self.skip("", in: " {}").skipped == false)
        #expect(Self.skip("", in: " {}").index == 1)
        #expect(Self.skip(#"{"a":1}"#, in: #"{"a":1"#).skipped == false)
        #expect(Self.skip(#"{"a":1}"#, in: "").skipped == false)
    }
}
