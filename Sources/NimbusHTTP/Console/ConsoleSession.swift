//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Crypto
import Hummingbird
import NimbusEngine
import NimbusModel
import NimbusStore

/// A signed-in operator's request: who they are, and the CSRF value their forms carry.
///
/// The session's secret travels only in an `HttpOnly`, `SameSite=Strict` cookie scoped to
/// `/console`. Forms carry an HMAC of that secret under a key of the server's: a page of
/// another origin can neither read it nor make it, and it changes with every session.
struct ConsoleSession: Sendable {
    /// The operator.
    let account: OperatorAccount
    /// The session's secret, as the cookie carries it.
    let secret: String
    /// What this session's forms must send as `csrf`.
    let csrf: String

    /// Whether the operator may change things (an administrator).
    var canChange: Bool { account.role == .admin }

    static let cookieName = "nimbus_console"
    /// The double-submit cookie of the forms shown before a session exists (sign-in, set-up).
    static let formCookieName = "nimbus_console_form"

    /// The value the forms of the session with `secret` carry.
    static func csrf(for secret: String, key: SymmetricKey) -> String {
        Hex.string(Array(HMAC<SHA256>.authenticationCode(for: Array(secret.utf8), using: key)).prefix(16))
    }

    /// Whether a form's `csrf` is this session's.
    func accepts(_ form: FormBody) -> Bool {
        guard let sent = form["csrf"] else { return false }
        return ConstantTime.equal(Array(sent.utf8), Array(csrf.utf8))
    }

    /// The `Set-Cookie` value that starts a session.
    static func startCookie(_ secret: String, secure: Bool) -> String {
        "\(cookieName)=\(secret); Path=/console; HttpOnly; SameSite=Strict; Max-Age=\(OperatorService.sessionLifetime / 1000)\(secure ? "; Secure" : "")"
    }

    /// The `Set-Cookie` value that ends it in the browser.
    static func endCookie(secure: Bool) -> String {
        "\(cookieName)=; Path=/console; HttpOnly; SameSite=Strict; Max-Age=0\(secure ? "; Secure" : "")"
    }

    /// The `Set-Cookie` value of a pre-session form's double-submit cookie.
    static func formCookie(_ value: String, secure: Bool) -> String {
        "\(formCookieName)=\(value); Path=/console; HttpOnly; SameSite=Strict; Max-Age=3600\(secure ? "; Secure" : "")"
    }
}
