//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import NimbusStore
import Synchronization

/// Makes UUID strings whose order follows creation time (RFC 9562 version 7), for record names
/// the server generates.
///
/// A random (version 4) name lands on a random page of every index keyed by it; a time-ordered
/// one appends to the end, so a commit touches and writes far fewer pages. CloudKit clients
/// treat record names as opaque strings, so any UUID works for them. Within one millisecond,
/// names still increase: the 12-bit sub-millisecond field counts up (RFC 9562 §6.2, method 1).
public final class TimeOrderedUUID: Sendable {
    private struct State {
        var lastMillisecond: UInt64 = 0
        var sequence: UInt16 = 0
    }

    private let state = Mutex(State())
    /// The clock names take their time from.
    private let clock: any NimbusClock

    /// Creates a generator on a clock (milliseconds since 1970-01-01 UTC).
    public init(clock: any NimbusClock) {
        self.clock = clock
    }

    /// The next name, such as `0190b3c4-5d6e-7f80-9a1b-2c3d4e5f6a7b` (upper case, like Foundation's UUIDs).
    public func next() -> String {
        let (millisecond, sequence) = state.withLock { state -> (UInt64, UInt16) in
            let current = UInt64(max(0, clock.millisecondsSince1970))
            if current > state.lastMillisecond {
                state.lastMillisecond = current
                state.sequence = UInt16.random(in: 0..<0x400)
            } else {
                state.sequence &+= 1
                if state.sequence > 0xFFF {
                    // More than 4,096 names in one millisecond: borrow the next millisecond.
                    state.lastMillisecond += 1
                    state.sequence = 0
                }
            }
            return (state.lastMillisecond, state.sequence)
        }
        // One call to the system generator for the 62 random bits (per-byte calls were one
        // system call each).
        var random = SystemRandomNumberGenerator()
        let randomBits = random.next()
        var bytes = [UInt8](repeating: 0, count: 16)
        for index in 0..<6 { bytes[index] = UInt8(truncatingIfNeeded: millisecond >> (40 - 8 * UInt64(index))) }
        bytes[6] = 0x70 | UInt8(sequence >> 8)
        bytes[7] = UInt8(truncatingIfNeeded: sequence)
        for index in 8..<16 { bytes[index] = UInt8(truncatingIfNeeded: randomBits >> (8 * UInt64(index - 8))) }
        bytes[8] = 0x80 | (bytes[8] & 0x3F)
        return Self.format(bytes)
    }

    /// `XXXXXXXX-XXXX-XXXX-XXXX-XXXXXXXXXXXX` in upper-case hex.
    private static func format(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789ABCDEF".utf8)
        return String(unsafeUninitializedCapacity: 36) { buffer in
            var position = 0
            for (index, byte) in bytes.enumerated() {
                if index == 4 || index == 6 || index == 8 || index == 10 {
                    buffer[position] = UInt8(ascii: "-")
                    position += 1
                }
                buffer[position] = digits[Int(byte >> 4)]
                buffer[position + 1] = digits[Int(byte & 0x0F)]
                position += 2
            }
            return position
        }
    }
}
