//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

/// Small helpers the request-by-request benchmarks share.
extension Double {
    /// Milliseconds from `start` to now.
    static func milliseconds(since start: ContinuousClock.Instant) -> Double {
        milliseconds(from: start, to: .now)
    }

    /// Milliseconds between two instants.
    static func milliseconds(from start: ContinuousClock.Instant, to end: ContinuousClock.Instant) -> Double {
        SyncBenchmark.seconds(end - start) * 1000
    }
}

/// The string value that follows `marker` in a response body, up to the next quote.
func string(after marker: String, in text: String) throws -> String {
    guard let range = text.range(of: marker), let end = text[range.upperBound...].firstIndex(of: "\"") else {
        throw LoadError("no \(marker) in \(text.prefix(300))")
    }
    return String(text[range.upperBound..<end])
}

/// How many times `needle` occurs in `haystack`, without overlaps: the benchmarks count records
/// in a response by their change tags, so the figure is the server's, not a JSON parser's.
func occurrences(of needle: [UInt8], in haystack: [UInt8]) -> Int {
    var found = 0
    var index = 0
    let last = haystack.count - needle.count
    while index <= last {
        if haystack[index] == needle[0] && haystack[index..<index + needle.count].elementsEqual(needle) {
            found += 1
            index += needle.count
        } else {
            index += 1
        }
    }
    return found
}
