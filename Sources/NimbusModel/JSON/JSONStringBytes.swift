//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

/// The bytes that end or escape a JSON string's plain run: a quote, a backslash, and control
/// bytes (below 0x20). Reading and writing strings both look for them, eight bytes at a time.
enum JSONStringBytes {
    /// How many leading bytes of `bytes`, in whole words of eight, hold none of those bytes.
    /// The caller checks the rest byte by byte.
    static func plainPrefixLength(of bytes: UnsafeBufferPointer<UInt8>) -> Int {
        guard let base = bytes.baseAddress else { return 0 }
        var offset = 0
        while offset + 8 <= bytes.count, !mayNeedAttention(UnsafeRawPointer(base + offset).loadUnaligned(as: UInt64.self)) {
            offset += 8
        }
        return offset
    }

    /// Whether any of eight bytes is a quote, a backslash or below 0x20 (the classic "has a
    /// zero byte" and "has a byte less than n" word tricks; they never miss one).
    private static func mayNeedAttention(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highBits: UInt64 = 0x8080_8080_8080_8080
        func hasZeroByte(_ value: UInt64) -> Bool { (value &- ones) & ~value & highBits != 0 }
        let hasControl = (word &- ones &* 0x20) & ~word & highBits != 0
        return hasControl || hasZeroByte(word ^ (ones &* 0x22)) || hasZeroByte(word ^ (ones &* 0x5C))
    }
}
