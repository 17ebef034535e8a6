//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Testing

@testable import NimbusModel

@Suite("Share record types: any ASCII case of cloudkit.share, and nothing else")
struct ShareTypeTests {
    /// The rule as it was first written: ASCII only, compared lowercased.
    private func byLowercasing(_ type: String) -> Bool {
        type.count == type.utf8.count && type.lowercased() == Share.recordType
    }

    @Test("every ASCII case of the name is a share type")
    func everyCase() {
        let letters = Array(Share.recordType)
        let letterPositions = letters.indices.filter { letters[$0].isLetter }
        for mask in 0..<(1 << letterPositions.count) {
            var spelled = letters
            for (bit, position) in letterPositions.enumerated() where mask & (1 << bit) != 0 {
                spelled[position] = Character(spelled[position].uppercased())
            }
            #expect(Share.isShareType(String(spelled)), "\(String(spelled))")
        }
    }

    @Test("a change of any one character, to any ASCII byte or to letters that fold to ASCII, agrees with the lowercasing rule")
    func oneCharacterChanged() {
        let letters = Array(Share.recordType.unicodeScalars)
        // The Kelvin sign lowercases to "k", and "İ" to "i" and a combining dot: not ASCII names.
        let replacements = (0..<128).compactMap(Unicode.Scalar.init) + ["\u{212A}", "\u{130}", "\u{E9}", "\u{17F}"]
        for position in letters.indices {
            for replacement in replacements {
                var scalars = letters
                scalars[position] = replacement
                let type = String(String.UnicodeScalarView(scalars))
                #expect(Share.isShareType(type) == byLowercasing(type), "\(type.debugDescription)")
            }
        }
    }

    @Test("longer, shorter and empty names are not share types")
    func lengths() {
        for type in ["", "cloudkit.shar", "cloudkit.shares", " cloudkit.share", "cloudkit.share\0", "cloudkit.share\r\n", "Note"] {
            #expect(!Share.isShareType(type), "\(type.debugDescription)")
            #expect(Share.isShareType(type) == byLowercasing(type))
        }
    }
}
