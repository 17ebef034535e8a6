//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// Where an app keeps its sync tokens between launches, one per feed.
///
/// ``Database/sync(zone:tokens:resultsLimit:reset:apply:)`` reads the token before fetching and writes the
/// next one only after the app applied each page, so a crash between the two repeats a page at
/// worst and never skips one.
public protocol ChangeTokenStore: Sendable {
    /// The stored token of a feed, or `nil` to sync from scratch.
    func token(for feed: String) async throws -> String?
    /// Stores a feed's token; `nil` forgets it.
    func setToken(_ token: String?, for feed: String) async throws
}

/// A ``ChangeTokenStore`` in a JSON file, replaced atomically on every write.
public actor FileChangeTokenStore: ChangeTokenStore {
    /// The file holding the tokens.
    public let fileURL: URL
    private var tokens: [String: String]?

    /// Creates a store backed by `fileURL`; the file is created on the first write.
    public init(fileURL: URL) {
        self.fileURL = fileURL
    }

    public func token(for feed: String) async throws -> String? {
        try loaded()[feed]
    }

    public func setToken(_ token: String?, for feed: String) async throws {
        var tokens = try loaded()
        tokens[feed] = token
        let data = try JSONEncoder().encode(tokens)
        try data.write(to: fileURL, options: .atomic)
        self.tokens = tokens
    }

    private func loaded() throws -> [String: String] {
        if let tokens { return tokens }
        guard let data = try? Data(contentsOf: fileURL) else { return [:] }
        let decoded = try JSONDecoder().decode([String: String].self, from: data)
        tokens = decoded
        return decoded
    }
}
