//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

/// Turns the bytes an SMTP server sends into replies, with no I/O of its own.
///
/// A reply is one or more lines `CODE-text` ending with a line `CODE text` (or just `CODE`);
/// every line of a reply has the same code. Lines end with CRLF; a bare LF is taken too, as
/// most clients do. The limits (a line of at most 2,048 bytes, a reply of at most 100 lines)
/// are far above what servers send (RFC 5321 allows 512 bytes a line) and keep a broken or
/// hostile server from growing our memory without end.
struct SMTPReplyParser {
    static let maximumLineLength = 2048
    static let maximumLines = 100

    private var pending: [UInt8] = []
    private var code: Int?
    private var lines: [String] = []

    /// Whether bytes have arrived that are not part of a reply handed out yet.
    var hasBufferedInput: Bool { !pending.isEmpty || code != nil }

    /// Adds bytes that arrived.
    mutating func append(_ bytes: some Sequence<UInt8>) {
        pending.append(contentsOf: bytes)
    }

    /// The next complete reply, or `nil` if more bytes are needed.
    mutating func next() throws(SMTPError) -> SMTPReply? {
        while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
            var line = pending[..<newline]
            if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
            guard line.count <= Self.maximumLineLength else { throw Self.violation("a reply line is too long") }
            let parsed = try Self.parse(line)
            pending.removeSubrange(...newline)
            if let code, code != parsed.code { throw Self.violation("a multi-line reply changed its code from \(code) to \(parsed.code)") }
            code = parsed.code
            lines.append(parsed.text)
            guard lines.count <= Self.maximumLines else { throw Self.violation("a reply has too many lines") }
            if parsed.isLast {
                let reply = SMTPReply(code: parsed.code, lines: lines)
                code = nil
                lines = []
                return reply
            }
        }
        guard pending.count <= Self.maximumLineLength else { throw Self.violation("a reply line is too long") }
        return nil
    }

    /// Reads `CODE`, `CODE text` or `CODE-text`.
    private static func parse(_ line: ArraySlice<UInt8>) throws(SMTPError) -> (code: Int, isLast: Bool, text: String) {
        let digits = line.prefix(3)
        guard digits.count == 3, digits.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
            let first = digits.first, (UInt8(ascii: "2")...UInt8(ascii: "5")).contains(first)
        else { throw violation("the server sent a line that is not an SMTP reply") }
        let code = digits.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
        let rest = line.dropFirst(3)
        guard let separator = rest.first else { return (code, true, "") }
        guard separator == UInt8(ascii: " ") || separator == UInt8(ascii: "-") else {
            throw violation("the server sent a line that is not an SMTP reply")
        }
        return (code, separator == UInt8(ascii: " "), String(decoding: rest.dropFirst(), as: UTF8.self))
    }

    private static func violation(_ message: String) -> SMTPError {
        SMTPError(.protocolViolation, message)
    }
}
