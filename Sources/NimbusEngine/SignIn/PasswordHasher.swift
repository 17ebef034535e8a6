//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Crypto
import Dispatch
import _CryptoExtras

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Hashes passwords with scrypt, a memory-hard function, and checks them.
///
/// Decision: scrypt rather than Argon2id because swift-crypto ships it (BoringSSL's), so no C
/// library is added; OWASP lists both. A hash is stored as
/// `$scrypt$ln=<log2 N>,r=<r>,p=<p>$<salt>$<key>` (base64, the PHC string format), so the
/// parameters travel with it: raising the cost later leaves old hashes checkable.
///
/// Hashing takes tens of milliseconds and tens of megabytes on purpose. It runs on Dispatch's
/// threads, never on the cooperative pool that serves requests, and at most `concurrency` at
/// a time, which bounds the memory sign-ins can take.
public final class PasswordHasher: Sendable {
    /// The cost of a new hash.
    public struct Parameters: Sendable, Hashable {
        /// log2 of scrypt's N (rounds): each step doubles time and memory.
        public var logRounds: Int
        /// scrypt's block size, r.
        public var blockSize: Int
        /// scrypt's parallelism, p.
        public var parallelism: Int

        /// Creates parameters.
        public init(logRounds: Int, blockSize: Int = 8, parallelism: Int = 1) {
            self.logRounds = logRounds
            self.blockSize = blockSize
            self.parallelism = parallelism
        }

        /// The default: N = 2^16, r = 8, p = 1 (64 MiB per hash).
        public static let standard = Parameters(logRounds: 16)

        /// The memory one hash takes, in bytes (128 · r · N).
        public var memoryBytes: Int { 128 * blockSize << logRounds }
    }

    let parameters: Parameters
    private let queue = DispatchQueue(label: "nimbus.password-hasher", attributes: .concurrent)
    private let slots: DispatchSemaphore

    /// Creates a hasher.
    /// - Parameter concurrency: How many hashes may run at once (each takes
    ///   ``Parameters/memoryBytes``); others wait their turn.
    public init(parameters: Parameters = .standard, concurrency: Int = 2) {
        self.parameters = parameters
        self.slots = DispatchSemaphore(value: max(1, concurrency))
    }

    /// The stored form of a new password.
    public func hash(_ password: String) async throws -> String {
        let salt = Credentials.randomBytes(16)
        let key = try await derive(password, salt: salt, parameters: parameters)
        return "$scrypt$ln=\(parameters.logRounds),r=\(parameters.blockSize),p=\(parameters.parallelism)$"
            + Data(salt).base64EncodedString() + "$" + Data(key).base64EncodedString()
    }

    /// Whether `password` is the one `stored` was made from. A malformed `stored` matches nothing.
    public func verify(_ password: String, against stored: String) async throws -> Bool {
        guard let parsed = Self.parse(stored) else { return false }
        let key = try await derive(password, salt: parsed.salt, parameters: parsed.parameters)
        return ConstantTime.equal(key, parsed.key)
    }

    /// Spends the time a check takes without a stored hash: a sign-in for an address with no
    /// account costs what one with an account costs, so timing tells nothing.
    public func spendVerificationTime(_ password: String) async throws {
        _ = try await derive(password, salt: Array(repeating: 0, count: 16), parameters: parameters)
    }

    /// Whether a stored hash was made with weaker parameters than today's.
    public func needsRehash(_ stored: String) -> Bool {
        guard let parsed = Self.parse(stored) else { return true }
        return parsed.parameters.memoryBytes < parameters.memoryBytes
    }

    // MARK: - Private

    private func derive(_ password: String, salt: [UInt8], parameters: Parameters) async throws -> [UInt8] {
        let slots = self.slots
        return try await withCheckedThrowingContinuation { continuation in
            queue.async {
                slots.wait()
                defer { slots.signal() }
                continuation.resume(
                    with: Result {
                        let key = try KDF.Scrypt.deriveKey(
                            from: Array(password.utf8),
                            salt: salt,
                            outputByteCount: 32,
                            rounds: 1 << parameters.logRounds,
                            blockSize: parameters.blockSize,
                            parallelism: parameters.parallelism,
                            maxMemory: parameters.memoryBytes + 1024 * 1024
                        )
                        return key.withUnsafeBytes { Array($0) }
                    }
                )
            }
        }
    }

    private struct Parsed {
        var parameters: Parameters
        var salt: [UInt8]
        var key: [UInt8]
    }

    private static func parse(_ stored: String) -> Parsed? {
        let parts = stored.split(separator: "$", omittingEmptySubsequences: false)
        guard parts.count == 5, parts[0].isEmpty, parts[1] == "scrypt" else { return nil }
        var values: [Substring: Int] = [:]
        for setting in parts[2].split(separator: ",") {
            let pair = setting.split(separator: "=")
            guard pair.count == 2, let value = Int(pair[1]) else { return nil }
            values[pair[0]] = value
        }
        guard let logRounds = values["ln"], let blockSize = values["r"], let parallelism = values["p"],
            (1...30).contains(logRounds), (1...64).contains(blockSize), (1...16).contains(parallelism),
            let salt = Data(base64Encoded: String(parts[3])), let key = Data(base64Encoded: String(parts[4]))
        else { return nil }
        return Parsed(
            parameters: Parameters(logRounds: logRounds, blockSize: blockSize, parallelism: parallelism),
            salt: Array(salt),
            key: Array(key)
        )
    }
}
