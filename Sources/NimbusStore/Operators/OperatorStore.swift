//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

/// Operators, their set-up links and console sessions, and the console's audit log.
///
/// Link and session secrets are stored as hashes only: the store never holds what a browser
/// presents.
public protocol OperatorStore: Sendable {
    /// Adds an operator.
    /// - Throws: ``StoreError`` `.alreadyExists` when the address is taken.
    func addOperator(_ account: OperatorAccount) async throws

    /// The operator with this address (lowercased), if any.
    func operatorAccount(email: String) async throws -> OperatorAccount?

    /// The operator with this identifier, if any.
    func operatorAccount(id: String) async throws -> OperatorAccount?

    /// Every operator, oldest first.
    func operatorAccounts() async throws -> [OperatorAccount]

    /// Sets an operator's password hash.
    func setOperatorPassword(_ passwordHash: String, operator id: String) async throws

    /// Keeps a set-up link: for an operator (`operatorID`), or for the first administrator (nil).
    func addOperatorSetupLink(hash: String, operatorID: String?, expiresAt: Int64) async throws

    /// Uses a set-up link once: its operator (or `.some(nil)` for a first-administrator link),
    /// or `nil` when it does not exist or has expired. A used link is gone.
    func takeOperatorSetupLink(hash: String, now: Int64) async throws -> String??

    /// Whether a set-up link exists and has not expired, without using it.
    func operatorSetupLink(hash: String, now: Int64) async throws -> String??

    /// Starts a console session (and forgets the operator's sessions expired by `now`).
    func addOperatorSession(hash: String, operatorID: String, expiresAt: Int64, now: Int64) async throws

    /// The operator a live session belongs to.
    func operatorOfSession(hash: String, now: Int64) async throws -> OperatorAccount?

    /// Ends one session.
    func deleteOperatorSession(hash: String) async throws

    /// Ends every session of an operator.
    func deleteOperatorSessions(operator id: String) async throws

    /// Disables or enables an operator.
    func setOperatorDisabled(_ disabled: Bool, operator id: String) async throws

    /// Appends to the audit log.
    func appendConsoleAudit(_ entry: ConsoleAuditEntry) async throws

    /// The newest entries of the audit log, newest first.
    func consoleAudit(limit: Int) async throws -> [ConsoleAuditEntry]

    /// A user's footprint in a container environment: counts only.
    func footprint(of user: String, in environment: ContainerEnvironment, now: Int64) async throws -> UserFootprint

    /// Every container environment, by container then environment.
    func containerEnvironments() async throws -> [ContainerEnvironment]

    /// How many bytes each container environment holds (records and assets, as quotas count
    /// them), and how many owners hold any; by container then environment. A scan of what is
    /// stored: callers cache it.
    func storageByContainer() async throws -> [ContainerStorage]
}
