//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

/// A moment in wall-clock time, to the millisecond: what Nimbus stamps records with, and
/// expires and schedules by.
///
/// Milliseconds since 1970-01-01 UTC, as the store keeps times and the protocol sends them.
public struct WallInstant: InstantProtocol, Sendable, Hashable, Codable, CustomStringConvertible {
    /// Milliseconds since 1970-01-01 UTC.
    public var millisecondsSince1970: Int64

    /// The instant `milliseconds` after 1970-01-01 UTC.
    public init(millisecondsSince1970 milliseconds: Int64) {
        millisecondsSince1970 = milliseconds
    }

    public func advanced(by duration: Duration) -> WallInstant {
        WallInstant(millisecondsSince1970: millisecondsSince1970 + duration.wholeMilliseconds)
    }

    public func duration(to other: WallInstant) -> Duration {
        .milliseconds(other.millisecondsSince1970 - millisecondsSince1970)
    }

    public static func < (lhs: WallInstant, rhs: WallInstant) -> Bool {
        lhs.millisecondsSince1970 < rhs.millisecondsSince1970
    }

    public var description: String { "\(millisecondsSince1970) ms" }
}

extension Duration {
    /// The duration in whole milliseconds, rounded towards zero.
    public var wholeMilliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }
}
