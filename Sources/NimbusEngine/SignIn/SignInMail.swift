//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusStore

/// The messages sign-in mails: what each says.
enum SignInMail {
    static func code(_ code: String, to email: String, purpose: SignInCode.Purpose, container: String, link: String?) -> MailMessage {
        let action: String
        switch purpose {
        case .signUp: action = "finish signing up"
        case .signIn: action = "sign in"
        case .resetPassword: action = "choose a new password"
        case .link: action = "add this address to your account"
        }
        var body = "Your code to \(action) in \(container) is \(code).\n\nIt works once, for 15 minutes."
        if let link { body += "\n\nOr open this link on the device you asked from:\n\(link)" }
        body += "\n\nIf you did not ask for it, ignore this message: nothing happens without the code."
        return MailMessage(to: email, subject: "Your code: \(code)", body: body)
    }

    static func accountExists(to email: String, container: String) -> MailMessage {
        MailMessage(
            to: email,
            subject: "You already have an account",
            body: """
                Someone (perhaps you) tried to sign up in \(container) with this address, which has an account already.

                Sign in instead, or reset your password if you forgot it. If it was not you, ignore this message: \
                nothing changed.
                """
        )
    }
}
