//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

/// The service extensions a server announced in its answer to `EHLO` (RFC 5321 4.1.1.1).
struct SMTPCapabilities: Sendable, Hashable {
    /// Each extension's keyword (upper case) and its parameters.
    private var extensions: [String: [String]] = [:]

    /// No extensions: what a server answering `HELO` offers.
    init() {}

    /// Reads a `250` answer to `EHLO`: its first line greets, each other line names an extension.
    init(ehlo reply: SMTPReply) {
        for line in reply.lines.dropFirst() {
            var words = line.split(separator: " ").map(String.init)
            guard !words.isEmpty else { continue }
            var keyword = words.removeFirst().uppercased()
            // Some old servers wrote `AUTH=LOGIN PLAIN`, from a draft of RFC 2554.
            if let equals = keyword.firstIndex(of: "=") {
                words.insert(String(keyword[keyword.index(after: equals)...]), at: 0)
                keyword = String(keyword[..<equals])
            }
            extensions[keyword, default: []] += words
        }
    }

    /// Whether the server announced `keyword`.
    func contains(_ keyword: String) -> Bool {
        extensions[keyword] != nil
    }

    /// The mechanisms of `AUTH`, upper case.
    var authenticationMechanisms: Set<String> {
        Set((extensions["AUTH"] ?? []).map { $0.uppercased() })
    }
}
