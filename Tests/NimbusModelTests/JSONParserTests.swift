//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusModel
import Testing

@Suite("the JSON parser")
struct JSONParserTests {
    @Test("parses every kind of value")
    func values() throws {
        let json = try JSONParser.parse(#" {"a": [1, -2.5e3, true, false, null, "x\u00e9\ud83d\ude00\n"], "b": {}} "#)
        #expect(
            json
                == .object([
                    "a": .array([.integer(1), .double(-2500), .bool(true), .bool(false), .null, .string("xé😀\n")]),
                    "b": .object([:]),
                ])
        )
    }

    @Test("numbers too large for 64 bits become doubles")
    func bigNumbers() throws {
        #expect(try JSONParser.parse("9223372036854775807") == .integer(.max))
        #expect(try JSONParser.parse("9223372036854775808") == .double(9_223_372_036_854_775_808))
        #expect(try JSONParser.parse("-9223372036854775808") == .integer(.min))
        #expect(try JSONParser.parse("-9223372036854775809") == .double(-9_223_372_036_854_775_809))
        #expect(try JSONParser.parse("[-0, 0, 10, 1e2, 1.0]") == .array([.integer(0), .integer(0), .integer(10), .double(100), .double(1)]))
    }

    @Test("strings are read right whatever their length and wherever a quote, an escape or a control byte falls")
    func stringPositions() throws {
        // Strings are scanned eight bytes at a time: try every place in and around a word.
        for length in 0..<20 {
            for position in 0...length {
                let prefix = String(repeating: "a", count: position)
                let suffix = String(repeating: "b", count: length - position)
                #expect(try JSONParser.parse("\"\(prefix)\(suffix)\"") == .string(prefix + suffix))
                #expect(try JSONParser.parse(#""\#(prefix)\"\#(suffix)""#) == .string(prefix + "\"" + suffix))
                #expect(try JSONParser.parse(#""\#(prefix)é\\\n\#(suffix)""#) == .string(prefix + "é\\\n" + suffix))
                #expect(try JSONParser.parse(#"["\#(prefix)","\#(suffix)"]"#) == .array([.string(prefix), .string(suffix)]))
                #expect(throws: JSONParser.Failure.self) { try JSONParser.parse("\"\(prefix)\u{01}\(suffix)\"") }
                #expect(throws: JSONParser.Failure.self) { try JSONParser.parse("\"\(prefix)\(suffix)") }
            }
        }
    }

    @Test("strings written with any byte that needs escaping, anywhere, read back the same")
    func writtenStrings() throws {
        for special in ["\"", "\\", "\n", "\u{01}", "\u{1F}", "é", "😀"] {
            for length in 0..<20 {
                for position in 0...length {
                    let text = String(repeating: "a", count: position) + special + String(repeating: "b", count: length - position)
                    var writer = JSONWriter()
                    writer.string(text)
                    #expect(try JSONParser.parse(writer.bytes) == .string(text))
                }
            }
        }
    }

    @Test("integers are written digit for digit, the extremes and signs included")
    func writtenIntegers() throws {
        let values: [Int64] = [0, 7, -7, 10, -10, 99, 100, 1_795_387_773_018, -1_795_387_773_018, .max, .min, .max - 1, .min + 1]
        for value in values {
            var writer = JSONWriter()
            writer.integer(value)
            #expect(String(decoding: writer.bytes, as: UTF8.self) == String(value))
        }
    }

    @Test("keys spelled in the code and keys made at run time make the same object")
    func writtenKeys() throws {
        var writer = JSONWriter()
        writer.beginObject()
        writer.field("recordName", "n")
        writer.field("count", 3)
        writer.key(escaping: "a \"quoted\" name")
        writer.bool(true)
        writer.key("list")
        writer.beginArray()
        writer.integer(-1)
        writer.endArray()
        writer.endObject()
        #expect(
            String(decoding: writer.bytes, as: UTF8.self) == #"{"recordName":"n","count":3,"a \"quoted\" name":true,"list":[-1]}"#
        )
        #expect(
            try JSONParser.parse(writer.bytes)
                == .object(["recordName": .string("n"), "count": .integer(3), "a \"quoted\" name": .bool(true), "list": .array([.integer(-1)])])
        )
    }

    @Test(
        "rejects what is not JSON",
        arguments: [
            "", "{", "[1,]", #"{"a" 1}"#, "01", "1.", "-", "tru", #""unterminated"#, #""\x""#, #""\ud83d""#, "{} x",
            "\"tab\tinside\"", #"{"a":1 "b":2}"#, #"[1 2]"#, #"{"a":[1,{}],"b":"\u00"}"#, "-01", "[01]",
            String(repeating: "[", count: 100) + String(repeating: "]", count: 100),
        ]
    )
    func rejects(text: String) {
        #expect(throws: JSONParser.Failure.self) { try JSONParser.parse(text) }
    }
}
