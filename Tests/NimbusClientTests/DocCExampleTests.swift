//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Foundation
import Testing

@Suite("NimbusClient's DocC articles")
struct DocCExampleTests {
    @Test("the code of \"Testing your app with NimbusClient\" is the code the suite runs")
    func articleMatches() throws {
        let tests = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        let root = tests.deletingLastPathComponent().deletingLastPathComponent()
        let article = try String(
            contentsOf: root.appendingPathComponent("Sources/NimbusClient/Docs.docc/TestingYourApp.md"),
            encoding: .utf8
        )
        let examples = try String(contentsOf: tests.appendingPathComponent("TestingArticleExamples.swift"), encoding: .utf8)
        let blocks = article.components(separatedBy: "```swift\n").dropFirst().map { $0.components(separatedBy: "```")[0] }
        #expect(blocks.count == 2)
        for block in blocks {
            // Whole, in order; the test file keeps its helper type private to itself.
            let expected = block.replacingOccurrences(of: "actor NotesStore", with: "private actor NotesStore")
            #expect(examples.contains(expected), "the suite's copy of the article differs from this block:\n\(block)")
        }
    }
}
