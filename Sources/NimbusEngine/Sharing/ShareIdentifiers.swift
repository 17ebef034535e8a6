//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

/// Makes the public identifiers of shares and participants.
///
/// A short GUID is the capability in a share's URL, so it is 25 characters of `[A-Za-z0-9_-]`
/// (as CloudKit's) drawn from the system's secure generator: about 150 bits, not guessable.
enum ShareIdentifiers {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// A new short GUID.
    @Sendable static func shortGUID() -> String {
        random(count: 25)
    }

    /// A new participant identifier.
    @Sendable static func participantID() -> String {
        random(count: 22)
    }

    private static func random(count: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count)
        for _ in 0..<count {
            // 64 symbols: the low six bits of a random byte are uniform.
            bytes.append(alphabet[Int(UInt8.random(in: 0...255, using: &generator) & 63)])
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
