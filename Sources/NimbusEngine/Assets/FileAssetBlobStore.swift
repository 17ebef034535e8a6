//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Dispatch

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Blobs as files under a directory of the data directory: `blobs/ab/abcdef…`, with uploads in
/// progress in `incoming/`.
///
/// Keeping a blob flushes the file, renames it into place and flushes the directory, so after
/// a crash a blob is either whole or absent. The flushes run on Dispatch threads, off the
/// request threads.
public struct FileAssetBlobStore: AssetBlobStore {
    /// The directory holding `blobs/` and `incoming/`.
    public let directory: String

    /// Opens (creating if needed) the store under `directory`.
    public init(directory: String) throws {
        self.directory = directory
        for path in [directory, directory + "/blobs", directory + "/incoming"] {
            guard mkdir(path, 0o700) == 0 || errno == EEXIST else {
                throw FileAssetBlobStoreError(operation: "mkdir", path: path, code: errno)
            }
        }
    }

    public var incomingDirectory: String { directory + "/incoming" }

    public func keep(_ path: String, as id: String) async throws {
        let target = try blobPath(id)
        let folder = String(target[..<target.lastIndex(of: "/")!])
        try await Self.offload {
            guard mkdir(folder, 0o700) == 0 || errno == EEXIST else {
                throw FileAssetBlobStoreError(operation: "mkdir", path: folder, code: errno)
            }
            try Self.flush(path)
            guard rename(path, target) == 0 else { throw FileAssetBlobStoreError(operation: "rename", path: target, code: errno) }
            try Self.flush(folder)
        }
    }

    public func read(_ id: String, offset: Int64, length: Int) async throws -> [UInt8] {
        let path = try blobPath(id)
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            if errno == ENOENT { throw AssetBlobMissing(id: id) }
            throw FileAssetBlobStoreError(operation: "open", path: path, code: errno)
        }
        defer { close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: length)
        var filled = 0
        while filled < length {
            let count = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress! + filled, length - filled, off_t(offset) + off_t(filled)) }
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else { throw FileAssetBlobStoreError(operation: "read", path: path, code: errno) }
            if count == 0 { break }
            filled += count
        }
        bytes.removeSubrange(filled...)
        return bytes
    }

    public func delete(_ id: String) async throws {
        let path = try blobPath(id)
        guard unlink(path) == 0 || errno == ENOENT else { throw FileAssetBlobStoreError(operation: "unlink", path: path, code: errno) }
    }

    /// Identifiers are the server's own (hex); anything else would be a path outside the store.
    private func blobPath(_ id: String) throws -> String {
        guard id.utf8.count >= 8, id.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) }) else {
            throw AssetBlobMissing(id: id)
        }
        return "\(directory)/blobs/\(id.prefix(2))/\(id)"
    }

    private static func flush(_ path: String) throws {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw FileAssetBlobStoreError(operation: "open", path: path, code: errno) }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { throw FileAssetBlobStoreError(operation: "fsync", path: path, code: errno) }
    }

    private static func offload(_ work: @escaping @Sendable () throws -> Void) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            DispatchQueue.global().async {
                do {
                    try work()
                    continuation.resume()
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        }
    }
}

/// A file operation of the blob store that failed.
struct FileAssetBlobStoreError: Error, CustomStringConvertible {
    var operation: String
    var path: String
    var code: Int32

    var description: String { "\(operation) \(path) failed: \(String(cString: strerror(code)))" }
}
