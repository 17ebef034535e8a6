//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import NimbusModel

/// A pending proof that a user controls an email address or phone number: a one-time code was
/// sent there, and only its hash is kept.
public struct ContactVerification: Sendable, Hashable {
    /// The container whose user asked.
    public var container: String
    /// The user who asked.
    public var userRecordName: String
    /// The address, in ``LookupInfo``'s normal form.
    public var address: LookupInfo
    /// The hash of the code sent.
    public var codeHash: String
    /// When the code stops working, in milliseconds since 1970.
    public var expiresAt: Int64
    /// Wrong codes tried so far.
    public var failedAttempts: Int

    /// Creates a verification.
    public init(container: String, userRecordName: String, address: LookupInfo, codeHash: String, expiresAt: Int64, failedAttempts: Int = 0) {
        self.container = container
        self.userRecordName = userRecordName
        self.address = address
        self.codeHash = codeHash
        self.expiresAt = expiresAt
        self.failedAttempts = failedAttempts
    }
}

/// Proving and keeping the addresses users control, beyond the ones they were created with.
public protocol ContactStore: Sendable {
    /// Stores a verification, replacing the user's earlier one for the same address.
    func saveVerification(_ verification: ContactVerification) async throws

    /// Returns the user's pending verification of an address, if any.
    func verification(of address: LookupInfo, by userRecordName: String, inContainer container: String) async throws
        -> ContactVerification?

    /// Removes the user's pending verification of an address.
    func deleteVerification(of address: LookupInfo, by userRecordName: String, inContainer container: String) async throws

    /// Links a proven address to a user, so lookups by it find them and invitations to it are
    /// theirs; removes the pending verification in the same transaction.
    /// - Throws: ``StoreError`` `.alreadyExists` if another user of the container has the address.
    func linkAddress(_ address: LookupInfo, to userRecordName: String, inContainer container: String) async throws

    /// Returns the addresses a user controls: the ones they were created with and the proven ones.
    func addresses(of userRecordName: String, inContainer container: String) async throws -> [LookupInfo]
}
