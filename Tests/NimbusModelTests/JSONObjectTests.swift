//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Testing

@testable import NimbusModel

@Suite("JSON objects: members in order, looked up by key")
struct JSONObjectTests {
    private func object(_ text: String) throws -> JSONObject {
        guard case .object(let members) = try JSONParser.parse(text) else { throw JSONParser.Failure(message: "not an object", offset: 0) }
        return members
    }

    @Test("members keep document order; a repeated key keeps its last value, in its first place")
    func orderAndRepeats() throws {
        let members = try object(#"{"b": 1, "a": 2, "b": 3}"#)
        #expect(members.keys == ["b", "a"])
        #expect(members["b"] == .integer(3))
        #expect(members["a"] == .integer(2))
        #expect(members["c"] == nil)
        #expect(members.count == 2)
    }

    @Test("objects are equal, and hash alike, whatever the order of their members")
    func equality() throws {
        let first = try object(#"{"a": 1, "b": [true, null]}"#)
        let second = try object(#"{"b": [true, null], "a": 1}"#)
        #expect(first == second)
        #expect(first.hashValue == second.hashValue)
        #expect(first != (try object(#"{"a": 1, "b": [true]}"#)))
        #expect(first != (try object(#"{"a": 1}"#)))
    }

    @Test("a large object looks members up through its index, also after changes", arguments: [3, 12, 13, 200])
    func largeObjects(size: Int) throws {
        var members = try object("{" + (0..<size).map { #""k\#($0)": \#($0)"# }.joined(separator: ",") + "}")
        for key in 0..<size { #expect(members["k\(key)"] == .integer(Int64(key))) }
        members["k1"] = nil
        members["new"] = .string("x")
        members["k0"] = .bool(true)
        #expect(members["k1"] == nil)
        #expect(members["new"] == .string("x"))
        #expect(members["k0"] == .bool(true))
        #expect(members["k\(size - 1)"] == (size - 1 == 1 ? nil : .integer(Int64(size - 1))))
        #expect(members.count == size)
        #expect(members.keys.last == "new")
    }

    @Test("keys compare by their bytes: canonically equivalent spellings are two keys, as in the stores", arguments: [1, 20])
    func canonicalKeys(padding: Int) throws {
        let others = (0..<padding).map { #""p\#($0)": 0, "# }.joined()
        let members = try object(#"{\#(others)"caf\u00e9": 1, "cafe\u0301": 2, "Key": 3, "\u212Aey": 4}"#)
        #expect(members.count == padding + 4)
        #expect(members["caf\u{e9}"] == .integer(1))
        #expect(members["cafe\u{301}"] == .integer(2))
        #expect(members["Key"] == .integer(3))
        #expect(members["\u{212A}ey"] == .integer(4))
    }
}
