//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

/// Lowercase hexadecimal, as stored hashes, key IDs, request IDs and search qualifiers spell
/// bytes. One table, made once: several of these run on every request.
package enum Hex {
    /// `0`–`9` and `a`–`f`, as UTF-8 bytes.
    package static let digits: [UInt8] = Array("0123456789abcdef".utf8)

    /// Appends two digits for each byte.
    package static func append(_ bytes: some Sequence<UInt8>, to text: inout [UInt8]) {
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0f)])
        }
    }

    /// The bytes as a string of two digits each.
    package static func string(_ bytes: some Collection<UInt8>) -> String {
        var text: [UInt8] = []
        text.reserveCapacity(bytes.count * 2)
        append(bytes, to: &text)
        return String(decoding: text, as: UTF8.self)
    }
}
