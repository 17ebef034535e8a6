//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A name (of a field, a record, a zone, a subscription) as a key: equal to another only if
/// their UTF-8 bytes are, and hashed by them.
///
/// Swift compares `String`s by canonical equivalence, so `"Caf\u{E9}"` and `"Cafe\u{301}"`, or
/// `"Key"` and `"\u{212A}ey"`, are one dictionary key, while the stores (and CloudKit) compare
/// names byte for byte and keep both. Keyed by `String`, a record's fields or a batch's records
/// would lose one of the two. File names on macOS are often in the decomposed form, so such
/// pairs happen. Literals make keys: `record.fields["title"]`.
public struct NameKey: Sendable, Hashable, Comparable, Codable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The name.
    public let string: String

    /// A key for a name.
    public init(_ string: String) {
        self.string = string
    }

    public init(stringLiteral value: String) {
        self.string = value
    }

    public var description: String { string }

    public static func == (lhs: NameKey, rhs: NameKey) -> Bool {
        lhs.string.isSameName(as: rhs.string)
    }

    /// String's own hash: names with the same bytes are canonically equivalent, so they hash
    /// alike; two spellings of one name collide, and ``==`` tells them apart.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(string)
    }

    /// Byte order, as the stores sort names.
    public static func < (lhs: NameKey, rhs: NameKey) -> Bool {
        lhs.string.utf8.lexicographicallyPrecedes(rhs.string.utf8)
    }

    public init(from decoder: any Decoder) throws {
        string = try decoder.singleValueContainer().decode(String.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(string)
    }
}

extension NameKey {
    /// The keys of a list of names, such as a request's `desiredKeys`; `nil` stays `nil`.
    public static func set(_ names: [String]?) -> Set<NameKey>? {
        names.map { Set($0.lazy.map { NameKey($0) }) }
    }
}

extension String {
    /// Whether two names are the same name: the same UTF-8 bytes, as the stores compare them
    /// (`==` on `String` would also equate canonically equivalent spellings).
    public func isSameName(as other: String) -> Bool {
        // The bytes themselves, not String's equality first: that one compares canonical forms,
        // which for text not known to be in NFC means normalizing both sides, and when it
        // finds two names equal the bytes must be compared anyway. A native string's UTF-8
        // count is stored, and its bytes are contiguous.
        let count = utf8.count
        guard count == other.utf8.count else { return false }
        let compared = utf8.withContiguousStorageIfAvailable { mine in
            other.utf8.withContiguousStorageIfAvailable { theirs in
                count == 0 || memcmp(mine.baseAddress!, theirs.baseAddress!, count) == 0
            }
        }
        return (compared ?? nil) ?? utf8.elementsEqual(other.utf8)
    }
}
