//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A ``TokenStore`` in a JSON file readable by its owner only (mode 0600), written whole to a
/// temporary name and renamed, so a crash never leaves half a file.
public final class FileTokenStore: TokenStore {
    /// The file's path.
    public let path: String
    private let lock = Mutex(())

    /// A store at `path`; its directory must exist.
    public init(path: String) {
        self.path = path
    }

    public func load() -> StoredCredentials? {
        lock.withLock { _ in
            guard let data = FileManager.default.contents(atPath: path) else { return nil }
            return try? JSONDecoder().decode(StoredCredentials.self, from: data)
        }
    }

    public func save(_ credentials: StoredCredentials) {
        lock.withLock { _ in
            guard let data = try? JSONEncoder().encode(credentials) else { return }
            let temporary = path + ".tmp"
            let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
            guard descriptor >= 0 else { return }
            let written = data.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            fsync(descriptor)
            close(descriptor)
            guard written == data.count else {
                unlink(temporary)
                return
            }
            rename(temporary, path)
        }
    }

    public func clear() {
        lock.withLock { _ in _ = unlink(path) }
    }
}
