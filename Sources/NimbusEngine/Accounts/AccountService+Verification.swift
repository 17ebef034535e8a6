//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Crypto
public import NimbusModel
import NimbusStore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// What starting a verification did.
public enum VerificationStart: Sendable, Hashable {
    /// A code went to the address; it works until this time (milliseconds since 1970).
    case codeSent(expiresAt: Int64)
    /// The address is the caller's already: nothing to prove.
    case alreadyVerified
}

extension AccountService {
    /// How long a verification code works, in milliseconds.
    public static let verificationCodeLifetime: Int64 = 10 * 60 * 1000
    /// Wrong codes allowed before the verification must start again.
    public static let verificationAttempts = 5

    /// Sends a one-time code to an email address or phone number the caller says they control.
    ///
    /// Proving an address links it to the caller's account: invitations sent to it (placeholder
    /// participants) become theirs to accept, and lookups by it find them. A new request
    /// replaces the previous code.
    /// - Throws: `.authenticationRequired` for anyone but a signed-in user; `.badRequest` for a
    ///   user record name; `.alreadyExists` if another user has the address.
    public func startVerification(of address: LookupInfo, caller: Caller) async throws(NimbusError) -> VerificationStart {
        let (user, address) = try Self.verifying(address, caller: caller)
        do {
            let owner = try await store.user(matching: address, inContainer: caller.container)
            if owner?.userRecordName == user { return .alreadyVerified }
            if owner != nil { throw NimbusError(.alreadyExists, "another account has this address") }
            let code = Self.makeCode()
            let expiresAt = clock.millisecondsSince1970 + Self.verificationCodeLifetime
            try await store.saveVerification(
                ContactVerification(
                    container: caller.container,
                    userRecordName: user,
                    address: address,
                    codeHash: Self.codeHash(code, user: user, address: address),
                    expiresAt: expiresAt
                )
            )
            try await mailer.sendCode(code, to: address, container: caller.container)
            return .codeSent(expiresAt: expiresAt)
        } catch let error as NimbusError {
            throw error
        } catch {
            throw internalError(error)
        }
    }

    /// Checks a code sent by ``startVerification(of:caller:)`` and, if it is right, links the
    /// address to the caller's account.
    /// - Throws: `.badRequest` for a wrong, expired or used-up code (after
    ///   ``verificationAttempts`` wrong ones the verification must start again);
    ///   `.alreadyExists` if another user proved the address first.
    public func confirmVerification(of address: LookupInfo, code: String, caller: Caller) async throws(NimbusError) {
        let (user, address) = try Self.verifying(address, caller: caller)
        do {
            guard var pending = try await store.verification(of: address, by: user, inContainer: caller.container),
                pending.expiresAt > clock.millisecondsSince1970, pending.failedAttempts < Self.verificationAttempts
            else {
                throw NimbusError.badRequest("no code for this address is pending, or it expired; ask for a new one")
            }
            let expected = Data(pending.codeHash.utf8)
            let given = Data(Self.codeHash(code, user: user, address: address).utf8)
            // Compared in constant time, as MACs are, so timing reveals nothing of the code.
            guard
                HMAC<SHA256>.authenticationCode(for: expected, using: Self.comparisonKey)
                    == HMAC<SHA256>.authenticationCode(for: given, using: Self.comparisonKey)
            else {
                pending.failedAttempts += 1
                if pending.failedAttempts >= Self.verificationAttempts {
                    try await store.deleteVerification(of: address, by: user, inContainer: caller.container)
                    throw NimbusError.badRequest("the code is wrong, and too many wrong codes were tried; ask for a new one")
                }
                try await store.saveVerification(pending)
                throw NimbusError.badRequest("the code is wrong")
            }
            try await store.linkAddress(address, to: user, inContainer: caller.container)
        } catch let error as NimbusError {
            throw error
        } catch let error as StoreError where error.kind == .alreadyExists {
            throw NimbusError(.alreadyExists, "another account has this address")
        } catch {
            throw internalError(error)
        }
    }

    // MARK: - Private

    private static func verifying(_ address: LookupInfo, caller: Caller) throws(NimbusError) -> (String, LookupInfo) {
        guard caller.kind == .user, let user = caller.userRecordName else {
            throw NimbusError(.authenticationRequired, "proving an address needs a signed-in user")
        }
        if case .userRecordName = address { throw .badRequest("only an emailAddress or a phoneNumber can be verified") }
        if let violation = address.syntaxViolation { throw .badRequest(violation) }
        return (user, address.normalized)
    }

    /// Six random digits.
    private static func makeCode() -> String {
        var generator = SystemRandomNumberGenerator()
        let number = UInt32.random(in: 0..<1_000_000, using: &generator)
        let digits = String(number)
        return String(repeating: "0", count: 6 - digits.count) + digits
    }

    /// The stored form of a code: bound to the user and address, so a leaked table row proves
    /// nothing elsewhere.
    private static func codeHash(_ code: String, user: String, address: LookupInfo) -> String {
        Credentials.hash("\(user)|\(address)|\(code.filter { !$0.isWhitespace })")
    }

    private static let comparisonKey = SymmetricKey(size: .bits256)
}
