//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

/// One reply of an SMTP server: a three-digit code and one or more lines of text (RFC 5321 4.2).
///
/// A multi-line reply (`250-first`, `250-second`, `250 last`) is one reply with several lines.
public struct SMTPReply: Sendable, Hashable, CustomStringConvertible {
    /// The reply code, such as 250 or 550.
    public var code: Int
    /// The text of each line, after the code and its separator.
    public var lines: [String]

    /// Creates a reply.
    public init(code: Int, lines: [String]) {
        self.code = code
        self.lines = lines
    }

    /// The lines joined with spaces, as one line of a log.
    public var text: String { lines.joined(separator: " ") }

    /// The code and the text, such as `550 5.1.1 No such user`.
    public var description: String { text.isEmpty ? "\(code)" : "\(code) \(text)" }

    /// 2xx: done.
    var isCompletion: Bool { (200..<300).contains(code) }
    /// 3xx: go on (the message after `DATA`, the next step of `AUTH`).
    var isIntermediate: Bool { (300..<400).contains(code) }
    /// 5xx: refused for good.
    var isPermanentFailure: Bool { (500..<600).contains(code) }
}
