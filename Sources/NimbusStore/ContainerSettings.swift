//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

/// What an operator configures for a container, in every environment.
public struct ContainerSettings: Sendable, Hashable {
    /// The container identifier.
    public var container: String
    /// The app's URL scheme (`tact`): share pages link to `tact://share/{shortGUID}`.
    public var appURLScheme: String?
    /// Where share pages send people without the app; the short GUID is appended
    /// (`https://example.com/join/` → `https://example.com/join/{shortGUID}`).
    public var fallbackURL: String?
    /// How many bytes of records each user's private database may hold (shared records
    /// count against their owner); `nil`: no limit.
    public var userQuotaBytes: Int64?
    /// The largest asset, in bytes; `nil`: the server's limit (50 MB by default).
    public var maximumAssetBytes: Int64?

    /// Creates settings; absent values are unset.
    public init(
        container: String,
        appURLScheme: String? = nil,
        fallbackURL: String? = nil,
        userQuotaBytes: Int64? = nil,
        maximumAssetBytes: Int64? = nil
    ) {
        self.container = container
        self.appURLScheme = appURLScheme
        self.fallbackURL = fallbackURL
        self.userQuotaBytes = userQuotaBytes
        self.maximumAssetBytes = maximumAssetBytes
    }
}
