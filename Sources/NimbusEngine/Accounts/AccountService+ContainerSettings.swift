//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import NimbusModel
public import NimbusStore

extension AccountService {
    /// A container's settings.
    public func containerSettings(_ container: String) async throws(NimbusError) -> ContainerSettings {
        do {
            return try await store.containerSettings(container)
        } catch {
            throw internalError(error)
        }
    }

    /// The largest asset limit a container may have: 5 GB, the most one S3 `PUT` takes.
    public static let largestAssetLimit: Int64 = 5_000_000_000

    /// Changes a container's settings; `nil` leaves a value as it is, an empty string unsets it.
    /// `userQuotaBytes`: `.some(nil)` removes the per-user storage quota, `.some(n)` sets it;
    /// writes that would take an owner past it are `QUOTA_EXCEEDED` (running servers see a new
    /// quota within ten seconds).
    /// `maximumAssetBytes`: `.some(nil)` goes back to the server's limit, `.some(n)` sets the
    /// container's own (at most 5 GB, the most one S3 `PUT` takes).
    /// - Throws: `.badRequest` for a scheme that is not a URL scheme, a fallback URL that is
    ///   not `http(s)`, or an asset limit out of range.
    public func configureContainer(
        _ container: String,
        appURLScheme: String?,
        fallbackURL: String?,
        userQuotaBytes: Int64?? = .none,
        maximumAssetBytes: Int64?? = .none
    ) async throws(NimbusError) -> ContainerSettings {
        var settings = try await containerSettings(container)
        if let maximumAssetBytes {
            if let bytes = maximumAssetBytes, !(1...Self.largestAssetLimit).contains(bytes) {
                throw .badRequest("an asset size limit must be from 1 byte to \(Self.largestAssetLimit) bytes")
            }
            settings.maximumAssetBytes = maximumAssetBytes
        }
        if let userQuotaBytes {
            if let bytes = userQuotaBytes, bytes <= 0 { throw .badRequest("a storage quota must be a positive number of bytes") }
            settings.userQuotaBytes = userQuotaBytes
        }
        if let appURLScheme {
            let valid =
                appURLScheme.first?.isLetter == true
                && appURLScheme.unicodeScalars.allSatisfy { $0.isASCII && (URLSchemeCharacters.all.contains($0)) }
            guard appURLScheme.isEmpty || valid else {
                throw .badRequest("app URL scheme must be letters, digits, '+', '-' or '.', starting with a letter")
            }
            settings.appURLScheme = appURLScheme.isEmpty ? nil : appURLScheme
        }
        if let fallbackURL {
            guard fallbackURL.isEmpty || fallbackURL.hasPrefix("https://") || fallbackURL.hasPrefix("http://") else {
                throw .badRequest("fallback URL must start with https:// or http://")
            }
            settings.fallbackURL = fallbackURL.isEmpty ? nil : fallbackURL
        }
        do {
            try await store.saveContainerSettings(settings)
        } catch {
            throw internalError(error)
        }
        return settings
    }
}

/// The characters of a URL scheme (RFC 3986 §3.1), without Foundation's character sets.
private enum URLSchemeCharacters {
    static let all = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+-.".unicodeScalars)
}
