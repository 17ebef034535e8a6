//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

/// A statement's SQL as the key of a statement cache (SQLite's prepared statements, PostgreSQL's
/// statements prepared per connection), hashed by a cheap digest of its bytes.
///
/// Every statement a request runs is looked up by its text, hundreds of bytes for a write: the
/// lookup, SipHash over every byte twice on a hit, was 1.7% of the server's time under single
/// saves on SQLite.
/// The texts come from this code, not from callers, so a weaker hash cannot be attacked; equal
/// digests still compare the whole text.
struct StatementKey: Hashable {
    var sql: String

    func hash(into hasher: inout Hasher) {
        var sql = sql
        hasher.combine(sql.withUTF8 { Self.digest(of: $0) })
    }

    static func == (lhs: StatementKey, rhs: StatementKey) -> Bool {
        lhs.sql == rhs.sql
    }

    /// FNV-1a over eight-byte words, then the tail bytes, and the length.
    static func digest(of bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
        let prime: UInt64 = 0x0000_0100_0000_01B3
        var digest: UInt64 = 0xCBF2_9CE4_8422_2325 ^ UInt64(bytes.count)
        guard let base = bytes.baseAddress else { return digest }
        var offset = 0
        while offset + 8 <= bytes.count {
            digest = (digest ^ UnsafeRawPointer(base + offset).loadUnaligned(as: UInt64.self)) &* prime
            offset += 8
        }
        while offset < bytes.count {
            digest = (digest ^ UInt64(base[offset])) &* prime
            offset += 1
        }
        return digest
    }
}
