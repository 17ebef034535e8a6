//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

/// How text that may come from a client is written into a log line: one line, nothing a
/// terminal acts on.
package enum LogValue {
    /// `text` with every control character (C0, DEL, C1, and the Unicode line and paragraph
    /// separators) written as a `\u{…}` escape, and backslashes doubled, so a value cannot end
    /// its line, forge another, or send a terminal escape sequence.
    package static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: needsEscape) else { return text }
        var result = ""
        result.unicodeScalars.reserveCapacity(text.unicodeScalars.count + 8)
        for scalar in text.unicodeScalars {
            if scalar == "\\" {
                result += "\\\\"
            } else if needsEscape(scalar) {
                result += "\\u{" + String(scalar.value, radix: 16) + "}"
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    private static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F..<0xA0).contains(scalar.value) || scalar == "\u{2028}" || scalar == "\u{2029}" || scalar == "\\"
    }
}
