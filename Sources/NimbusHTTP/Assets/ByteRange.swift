//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

/// The one byte range of a `Range: bytes=...` header (RFC 9110 §14.1.2).
///
/// Decision: a header with several ranges, or one that does not parse, is answered with the
/// whole asset (RFC 9110 lets a server ignore `Range`); a range that starts past the end is a
/// `416`.
enum ByteRange: Equatable {
    /// Send everything.
    case whole
    /// Send these bytes (inclusive).
    case range(ClosedRange<Int64>)
    /// No byte of the asset is in the range.
    case unsatisfiable

    static func parse(_ header: String, size: Int64) -> ByteRange {
        let value = header.trimmingPrefix(while: { $0 == " " })
        guard value.lowercased().hasPrefix("bytes="), !value.contains(",") else { return .whole }
        let spec = value.dropFirst("bytes=".count)
        let parts = spec.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else { return .whole }
        let first = parts[0].trimmingPrefix(while: { $0 == " " })
        let last = parts[1]
        if first.isEmpty {
            // The last n bytes.
            guard let suffix = Int64(last), suffix >= 0 else { return .whole }
            guard suffix > 0, size > 0 else { return .unsatisfiable }
            return .range(max(0, size - suffix)...(size - 1))
        }
        guard let start = Int64(first), start >= 0 else { return .whole }
        let end: Int64
        if last.isEmpty {
            end = size - 1
        } else {
            guard let parsed = Int64(last), parsed >= start else { return .whole }
            end = min(parsed, size - 1)
        }
        guard start < size else { return .unsatisfiable }
        return .range(start...end)
    }
}

extension Substring {
    fileprivate func trimmingPrefix(while predicate: (Character) -> Bool) -> Substring {
        self[(firstIndex { !predicate($0) } ?? endIndex)...]
    }
}

extension String {
    fileprivate func trimmingPrefix(while predicate: (Character) -> Bool) -> Substring {
        self[...].trimmingPrefix(while: predicate)
    }
}
