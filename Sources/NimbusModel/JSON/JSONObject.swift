//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

/// The members of a parsed JSON object, in document order.
///
/// Not a `Dictionary`: the objects of a request or response are small (a field value, a
/// change stamp, a zone ID), and hashing each key on insert and on lookup cost more than half
/// of parsing a 200-record response. Members are kept in one array and looked up by
/// comparing keys; an object with many members (a record's `fields`) also gets a hash index,
/// built once. A key that appears twice keeps its last value, as with a dictionary.
package struct JSONObject: Sendable {
    /// The members, in document order: one allocation per object.
    private var members: [(key: String, value: JSONValue)] = []
    /// Key to position, for objects of more than ``indexThreshold`` members.
    private var index: [NameKey: Int]?

    /// The member count above which lookups go through a hash index.
    private static let indexThreshold = 12

    package init() {}

    /// An empty object with room for `capacity` members.
    package init(capacity: Int) {
        members.reserveCapacity(capacity)
    }

    package var keys: [String] { members.map(\.key) }
    package var values: [JSONValue] { members.map(\.value) }

    /// An object with the members of a dictionary, in key order.
    package init(_ members: [String: JSONValue]) {
        for (key, value) in members.sorted(by: { $0.key < $1.key }) { self[key] = value }
    }

    /// The first member in document order.
    package var first: (key: String, value: JSONValue)? {
        members.first
    }

    /// The members as a dictionary (for `Codable`).
    package var dictionary: [String: JSONValue] {
        Dictionary(members.lazy.map { ($0.key, $0.value) }) { _, last in last }
    }

    /// The members for which `isIncluded` is true, in document order.
    package func filter(_ isIncluded: (Element) throws -> Bool) rethrows -> JSONObject {
        var kept = JSONObject()
        for member in self where try isIncluded(member) { kept[member.key] = member.value }
        return kept
    }

    package var count: Int { members.count }
    package var isEmpty: Bool { members.isEmpty }

    /// The value of a member; setting `nil` removes it.
    package subscript(key: String) -> JSONValue? {
        get { position(of: key).map { members[$0].value } }
        set {
            if let position = position(of: key) {
                if let newValue {
                    members[position].value = newValue
                } else {
                    members.remove(at: position)
                    index = nil
                    buildIndexIfLarge()
                }
            } else if let newValue {
                members.append((key, newValue))
                if index != nil {
                    index?[NameKey(key)] = members.count - 1
                } else {
                    buildIndexIfLarge()
                }
            }
        }
    }

    private func position(of key: String) -> Int? {
        if let index { return index[NameKey(key)] }
        // Byte equality, as JSON's and the stores': canonically equivalent keys that are
        // spelled differently are two keys (a record may have fields of both names).
        for position in members.indices where members[position].key.isSameName(as: key) { return position }
        return nil
    }

    private mutating func buildIndexIfLarge() {
        guard members.count > Self.indexThreshold else { return }
        var index: [NameKey: Int] = [:]
        index.reserveCapacity(members.count)
        for (position, member) in members.enumerated() { index[NameKey(member.key)] = position }
        self.index = index
    }
}

extension JSONObject: Sequence {
    package typealias Element = (key: String, value: JSONValue)

    package struct Iterator: IteratorProtocol {
        private let object: JSONObject
        private var position = 0

        init(_ object: JSONObject) {
            self.object = object
        }

        package mutating func next() -> Element? {
            guard position < object.members.count else { return nil }
            defer { position += 1 }
            return object.members[position]
        }
    }

    package func makeIterator() -> Iterator { Iterator(self) }

    package var underestimatedCount: Int { members.count }
}

extension JSONObject: ExpressibleByDictionaryLiteral {
    package init(dictionaryLiteral elements: (String, JSONValue)...) {
        for (key, value) in elements { self[key] = value }
    }
}

/// Objects are equal when they have the same members, in any order, as JSON objects are.
extension JSONObject: Hashable {
    package static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        guard lhs.count == rhs.count else { return false }
        return lhs.allSatisfy { rhs[$0.key] == $0.value }
    }

    package func hash(into hasher: inout Hasher) {
        // Order-independent: the sum of each member's own hash.
        var sum = 0
        for (key, value) in self {
            var member = Hasher()
            member.combine(NameKey(key))
            member.combine(value)
            sum &+= member.finalize()
        }
        hasher.combine(count)
        hasher.combine(sum)
    }
}
