//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

/// Comparing runs of bytes eight at a time: readers compare what they are reading with bytes
/// they read before, and the standard library's `elementsEqual` goes one element at a time.
enum ByteRuns {
    /// Whether `bytes` starts with `prefix`.
    static func hasPrefix(_ bytes: UnsafeBufferPointer<UInt8>, _ prefix: UnsafeBufferPointer<UInt8>) -> Bool {
        guard prefix.count <= bytes.count else { return false }
        guard let left = bytes.baseAddress, let right = prefix.baseAddress else { return prefix.isEmpty }
        var offset = 0
        while offset + 8 <= prefix.count {
            let a = UnsafeRawPointer(left + offset).loadUnaligned(as: UInt64.self)
            let b = UnsafeRawPointer(right + offset).loadUnaligned(as: UInt64.self)
            if a != b { return false }
            offset += 8
        }
        while offset < prefix.count {
            if left[offset] != right[offset] { return false }
            offset += 1
        }
        return true
    }

    /// Whether two runs hold the same bytes.
    static func equal(_ bytes: UnsafeBufferPointer<UInt8>, _ other: UnsafeBufferPointer<UInt8>) -> Bool {
        bytes.count == other.count && hasPrefix(bytes, other)
    }
}
