//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusModel
import Synchronization

/// Makes the `X-Apple-Request-UUID` of each request: a random 64-bit prefix chosen at start-up
/// and a 64-bit counter, written as a UUID.
///
/// Request IDs must be unique, not unpredictable (they carry no authority), and `UUID()` reads
/// the system's random source on every call, which showed in profiles of small requests.
final class RequestIDGenerator: Sendable {
    /// The generator of this process: IDs are unique across every router and socket in it.
    static let shared = RequestIDGenerator()

    private let prefix: UInt64
    private let counter = Atomic<UInt64>(0)

    init() {
        var generator = SystemRandomNumberGenerator()
        prefix = generator.next()
    }

    /// The next ID, such as `3f2a9c0d-81b4-4e6f-0000-00000000002a`.
    func next() -> String {
        let count = counter.wrappingAdd(1, ordering: .relaxed).newValue
        var bytes: [UInt8] = []
        bytes.reserveCapacity(36)
        for (index, value) in [prefix, count].enumerated() {
            for shift in stride(from: 60, through: 0, by: -4) {
                let position = index * 16 + (60 - shift) / 4
                if position == 8 || position == 12 || position == 16 || position == 20 { bytes.append(UInt8(ascii: "-")) }
                bytes.append(Hex.digits[Int((value >> UInt64(shift)) & 0xF)])
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
