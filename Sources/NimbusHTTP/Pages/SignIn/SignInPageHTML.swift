//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Foundation
import NimbusStore

/// The sign-in page's HTML: the forms, the code form, and the page that hands the token to the
/// window that opened it.
enum SignInPageHTML {
    /// What the forms carry besides their own fields.
    struct Hidden {
        var flow: String
        var csrf: String
        var action: String
    }

    static func forms(
        container: String,
        settings: SignInSettings,
        hidden: Hidden,
        message: String?,
        email: String? = nil
    ) -> String {
        var body = "<h1>Sign in</h1><p class=\"container\">to \(HTML.escape(container))</p>"
        if let message { body += "<p class=\"message\" role=\"alert\">\(HTML.escape(message))</p>" }
        // Providers first: one click, as people expect of "Sign in with Apple".
        for provider in settings.providers {
            let label = provider.kind == .apple ? "Sign in with Apple" : "Continue with \(provider.name)"
            body += form(hidden, "provider", title: nil, button: label) {
                "<input type=\"hidden\" name=\"provider\" value=\"\(HTML.escape(provider.name))\">"
            }
        }
        if settings.passwordEnabled {
            body += form(hidden, "signin", title: "Sign in", button: "Sign in") {
                field("email", "Email", type: "email", value: email, autocomplete: "username")
                    + field("password", "Password", type: "password", autocomplete: "current-password")
            }
            body += form(hidden, "signup", title: "Create an account", button: "Create account") {
                field("name", "Name", type: "text", autocomplete: "name")
                    + field("email", "Email", type: "email", autocomplete: "email")
                    + field(
                        "password",
                        "Password (at least \(settings.minimumPasswordLength) characters)",
                        type: "password",
                        autocomplete: "new-password"
                    )
            }
        }
        if settings.emailCodeEnabled {
            body += form(hidden, "code", title: "Email me a code", button: "Send code") {
                field("email", "Email", type: "email", autocomplete: "email")
            }
        }
        if settings.anonymousEnabled {
            body += form(hidden, "anonymous", title: "Just a name", button: "Continue") {
                field("name", "Name", type: "text", autocomplete: "nickname")
            }
        }
        if !settings.passwordEnabled && !settings.emailCodeEnabled && !settings.anonymousEnabled && settings.providers.isEmpty {
            body += "<p>This app signs people in through its own app only.</p>"
        }
        return page(title: "Sign in", body: body)
    }

    static func codeForm(email: String, hidden: Hidden, message: String?, resetting: Bool) -> String {
        var body = "<h1>Check your email</h1>"
        body += "<p>We sent a code to <strong>\(HTML.escape(email))</strong>. It works once, for 15 minutes.</p>"
        if let message { body += "<p class=\"message\" role=\"alert\">\(HTML.escape(message))</p>" }
        body += form(hidden, "verify", title: nil, button: "Continue") {
            "<input type=\"hidden\" name=\"email\" value=\"\(HTML.escape(email))\">"
                + field("code", "Code", type: "text", autocomplete: "one-time-code", inputMode: "numeric")
                + (resetting ? field("password", "New password", type: "password", autocomplete: "new-password") : "")
        }
        return page(title: "Check your email", body: body)
    }

    /// A page whose script hands the token to the window that opened it, then closes.
    static func postMessage(token: String, state: String?, origin: String, scriptNonce: String) -> String {
        let message =
            "{ckWebAuthToken: \(javaScriptString(token)), ckSession: \(javaScriptString(token))"
            + (state.map { ", state: \(javaScriptString($0))" } ?? "") + "}"
        let script = """
            <script nonce="\(scriptNonce)">
            if (window.opener) { window.opener.postMessage(\(message), \(javaScriptString(origin))); window.close(); }
            else { document.getElementById("status").textContent = "You are signed in. You can close this window."; }
            </script>
            """
        return page(title: "Signed in", body: "<h1>Signed in</h1><p id=\"status\">Returning to the app…</p>" + script)
    }

    static func signedIn() -> String {
        page(title: "Signed in", body: "<h1>Signed in</h1><p>You are signed in. You can close this window.</p>")
    }

    // MARK: - Parts

    private static func form(_ hidden: Hidden, _ action: String, title: String?, button: String, fields: () -> String) -> String {
        var html = "<form method=\"post\" action=\"\(HTML.escape(hidden.action))\" class=\"\(action)\">"
        if let title { html += "<h2>\(HTML.escape(title))</h2>" }
        html += "<input type=\"hidden\" name=\"action\" value=\"\(action)\">"
        html += "<input type=\"hidden\" name=\"flow\" value=\"\(HTML.escape(hidden.flow))\">"
        html += "<input type=\"hidden\" name=\"csrf\" value=\"\(HTML.escape(hidden.csrf))\">"
        html += fields()
        html += "<button type=\"submit\">\(HTML.escape(button))</button></form>"
        return html
    }

    private static func field(_ name: String, _ label: String, type: String, value: String? = nil, autocomplete: String, inputMode: String? = nil)
        -> String
    {
        var input = "<input name=\"\(name)\" type=\"\(type)\" autocomplete=\"\(autocomplete)\" required"
        if let value { input += " value=\"\(HTML.escape(value))\"" }
        if let inputMode { input += " inputmode=\"\(inputMode)\"" }
        return "<label>\(HTML.escape(label))\(input + ">")</label>"
    }

    private static func page(title: String, body: String) -> String {
        PageChrome.document(title: title, body: body)
    }

    /// A JavaScript string literal that is safe inside a `<script>` element.
    static func javaScriptString(_ text: String) -> String {
        var literal = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": literal += "\\\""
            case "\\": literal += "\\\\"
            case "<": literal += "\\u003c"
            case ">": literal += "\\u003e"
            case "&": literal += "\\u0026"
            case "\u{2028}": literal += "\\u2028"
            case "\u{2029}": literal += "\\u2029"
            default:
                if scalar.value < 0x20 {
                    literal += String(format: "\\u%04x", scalar.value)
                } else {
                    literal.unicodeScalars.append(scalar)
                }
            }
        }
        return literal + "\""
    }
}
