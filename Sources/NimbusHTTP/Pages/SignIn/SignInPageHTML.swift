//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Foundation
import NimbusStore

/// The sign-in page's HTML, from its templates (`pages/signin*.mustache`, which an operator
/// may replace): the forms, the code form, and the page that hands the token to the window
/// that opened it.
struct SignInPageHTML: Sendable {
    let templates: PageTemplates

    /// What the forms carry besides their own fields.
    struct Hidden {
        var flow: String
        var csrf: String
        var action: String
    }

    func forms(
        container: String,
        settings: SignInSettings,
        hidden: Hidden,
        message: String?,
        email: String? = nil
    ) -> String {
        var values = Self.values(hidden, title: "Sign in", message: message)
        values["container"] = container
        // Providers first: one click, as people expect of "Sign in with Apple".
        values["providers"] = settings.providers.map { provider -> [String: Any] in
            ["name": provider.name, "label": provider.kind == .apple ? "Sign in with Apple" : "Continue with \(provider.name)"]
        }
        values["password"] = settings.passwordEnabled
        values["minimumPasswordLength"] = settings.minimumPasswordLength
        values["emailCode"] = settings.emailCodeEnabled
        values["anonymous"] = settings.anonymousEnabled
        values["noWayIn"] = !settings.passwordEnabled && !settings.emailCodeEnabled && !settings.anonymousEnabled && settings.providers.isEmpty
        if let email { values["email"] = email }
        return templates.render("signin", values)
    }

    func codeForm(email: String, hidden: Hidden, message: String?, resetting: Bool) -> String {
        var values = Self.values(hidden, title: "Check your email", message: message)
        values["email"] = email
        values["resetting"] = resetting
        return templates.render("signin-code", values)
    }

    /// A page whose script hands the token to the window that opened it, then closes. The
    /// values are in the page's attributes, HTML-escaped; the script is the template's own.
    func postMessage(token: String, state: String?, origin: String, scriptNonce: String) -> String {
        templates.render(
            "signin-done",
            [
                "title": "Signed in",
                "returning": [
                    "token": token, "state": state ?? "", "hasState": state != nil ? "true" : "false", "origin": origin, "nonce": scriptNonce,
                ],
            ]
        )
    }

    func signedIn() -> String {
        templates.render("signin-done", ["title": "Signed in"])
    }

    private static func values(_ hidden: Hidden, title: String, message: String?) -> [String: Any] {
        var values: [String: Any] = ["title": title, "action": hidden.action, "flow": hidden.flow, "csrf": hidden.csrf]
        if let message { values["message"] = message }
        return values
    }
}
