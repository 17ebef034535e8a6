//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import Logging
import NIOSSL
import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The server's TLS certificate and key, read from their files and read again when the files
/// change (a renewal by certbot or acme.sh), without a restart: each new connection takes the
/// context of the latest good pair. Files that change into something unusable (a key that does
/// not match, a half-written file) keep the previous pair serving, with a warning.
public final class TLSCertificates: Sendable {
    /// Where the PEM files are.
    public struct Files: Sendable, Hashable {
        /// The certificate chain, leaf first.
        public var certificate: String
        /// The private key.
        public var key: String

        /// Names the files.
        public init(certificate: String, key: String) {
            self.certificate = certificate
            self.key = key
        }
    }

    /// How often, at most, new connections look at the files' modification times.
    static let checkInterval: Int64 = 1_000

    let files: Files
    private let logger: Logger
    private let state: Mutex<State>

    private struct State {
        var context: NIOSSLContext
        var stamps: [Int64]
        var checkedAt: Int64
    }

    /// Reads the files.
    /// - Throws: ``TLSFailure`` naming the file and what is wrong with it.
    public init(_ files: Files, logger: Logger) throws {
        self.files = files
        self.logger = logger
        let context = try Self.context(files)
        state = Mutex(State(context: context, stamps: Self.stamps(files), checkedAt: Self.now()))
    }

    /// The context for a new connection: the files' latest good pair.
    func context() -> NIOSSLContext {
        let now = Self.now()
        let (current, changed) = state.withLock { state -> (NIOSSLContext, [Int64]?) in
            guard now - state.checkedAt >= Self.checkInterval else { return (state.context, nil) }
            state.checkedAt = now
            let stamps = Self.stamps(files)
            return (state.context, stamps == state.stamps ? nil : stamps)
        }
        guard let changed else { return current }
        do {
            let fresh = try Self.context(files)
            state.withLock {
                $0.context = fresh
                $0.stamps = changed
            }
            logger.notice("TLS certificate reloaded", metadata: ["nimbus.file": "\(files.certificate)"])
            return fresh
        } catch {
            // Not remembered as seen: the next check tries again, as a renewal may be half-written.
            logger.warning("the changed TLS files are not usable; still serving the previous certificate", metadata: ["nimbus.error": "\(error)"])
            return current
        }
    }

    private static func context(_ files: Files) throws -> NIOSSLContext {
        let chain: [NIOSSLCertificate]
        do {
            chain = try NIOSSLCertificate.fromPEMFile(files.certificate)
        } catch {
            throw TLSFailure(description: "cannot read the TLS certificate \(files.certificate): \(error)")
        }
        guard !chain.isEmpty else { throw TLSFailure(description: "the TLS certificate file \(files.certificate) holds no certificate") }
        let key: NIOSSLPrivateKey
        do {
            key = try NIOSSLPrivateKey(file: files.key, format: .pem)
        } catch {
            throw TLSFailure(description: "cannot read the TLS key \(files.key): \(error)")
        }
        let configuration = TLSConfiguration.makeServerConfiguration(certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
        do {
            return try NIOSSLContext(configuration: configuration)
        } catch {
            throw TLSFailure(description: "the TLS key \(files.key) does not go with the certificate \(files.certificate): \(error)")
        }
    }

    /// The files' modification times, in milliseconds (0 for a file that cannot be read).
    private static func stamps(_ files: Files) -> [Int64] {
        [files.certificate, files.key].map { path in
            let modified = (try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date
            return modified.map { Int64($0.timeIntervalSince1970 * 1000) } ?? 0
        }
    }

    /// Milliseconds on a clock that only goes forward.
    private static func now() -> Int64 {
        let elapsed = ContinuousClock.now - start
        return elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000
    }

    private static let start = ContinuousClock.now
}

/// TLS files that cannot serve.
public struct TLSFailure: Error, CustomStringConvertible {
    public var description: String
}
