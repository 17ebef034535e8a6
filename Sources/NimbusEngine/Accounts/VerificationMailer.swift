//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import Logging
public import NimbusModel

/// Delivers the one-time codes that prove a user controls an email address or phone number.
///
/// Deployments plug in their email or SMS provider; ``LogVerificationMailer`` is the
/// development default.
public protocol VerificationMailer: Sendable {
    /// Sends `code` to `address` for a user of `container`.
    func sendCode(_ code: String, to address: LookupInfo, container: String) async throws
}

/// The development mailer: writes each code to the server's log instead of sending it.
///
/// Never use it where the log is readable by anyone who should not prove addresses.
public struct LogVerificationMailer: VerificationMailer {
    let logger: Logger

    /// Creates a mailer that logs to `logger`.
    public init(logger: Logger) {
        self.logger = logger
    }

    public func sendCode(_ code: String, to address: LookupInfo, container: String) async throws {
        let target: String
        switch address {
        case .emailAddress(let email): target = email
        case .phoneNumber(let phone): target = phone
        case .userRecordName(let name): target = name
        }
        logger.notice(
            "Verification code (development mailer: not sent)",
            metadata: [LogKey.container: "\(container)", LogKey.address: "\(target)", LogKey.code: "\(code)"]
        )
    }
}
