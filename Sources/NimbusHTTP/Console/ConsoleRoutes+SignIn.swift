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

extension ConsoleRoutes {
    /// `GET /console/sign-in`: the form, or the console for an operator already signed in.
    func signInPage(_ request: Request) async -> Response {
        if (try? await session(of: request)) ?? nil != nil { return redirect("/console") }
        return preSessionPage(request, "sign-in", title: "Sign in", values: [:])
    }

    /// `POST /console/sign-in`.
    func signIn(_ request: Request, context: NimbusRequestContext) async -> Response {
        var request = request
        guard let form = try? await FormBody(String(buffer: request.collectBody(upTo: Self.maximumFormBytes))) else {
            return problem(NimbusError(.limitExceeded, "the form is too large"), session: nil)
        }
        guard formCSRFMatches(request, form) else {
            return preSessionPage(request, "sign-in", title: "Sign in", status: .forbidden, problem: Self.staleForm, values: [:])
        }
        let email = form["email"] ?? ""
        do {
            let (account, secret) = try await services.operators.signIn(
                email: email,
                password: form["password"] ?? "",
                clientAddress: context.clientAddress
            )
            try? await services.operators.audit(account, "operator.sign-in", container: nil, target: account.email)
            return startSession(secret)
        } catch {
            return preSessionPage(
                request,
                "sign-in",
                title: "Sign in",
                status: error.code.httpStatus,
                problem: error.reason,
                values: ["emailValue": String(email.prefix(254))]
            )
        }
    }

    /// `GET /console/setup/{link}`: choosing a password, or creating the first administrator.
    func setupPage(_ request: Request, link: String) async -> Response {
        do {
            let kind = try await setupLinkKind(link)
            return preSessionPage(request, "setup", title: "Set up", values: setupValues(kind, link: link))
        } catch {
            return problem(error, session: nil)
        }
    }

    /// `POST /console/setup/{link}`.
    func setup(_ request: Request, context: NimbusRequestContext, link: String) async -> Response {
        var request = request
        let kind: OperatorService.SetupLink
        do {
            kind = try await setupLinkKind(link)
        } catch {
            return problem(error, session: nil)
        }
        guard let form = try? await FormBody(String(buffer: request.collectBody(upTo: Self.maximumFormBytes))) else {
            return problem(NimbusError(.limitExceeded, "the form is too large"), session: nil)
        }
        var values = setupValues(kind, link: link)
        values["emailValue"] = String((form["email"] ?? "").prefix(254))
        guard formCSRFMatches(request, form) else {
            return preSessionPage(request, "setup", title: "Set up", status: .forbidden, problem: Self.staleForm, values: values)
        }
        do {
            let (_, secret) = try await services.operators.completeSetup(link: link, email: form["email"], password: form["password"] ?? "")
            return startSession(secret)
        } catch {
            return preSessionPage(request, "setup", title: "Set up", status: error.code.httpStatus, problem: error.reason, values: values)
        }
    }

    /// `POST /console/sign-out`.
    func signOut(_ session: ConsoleSession) async throws(NimbusError) -> Response {
        try await services.operators.signOut(session.secret)
        var response = redirect("/console/sign-in")
        response.headers[.setCookie] = ConsoleSession.endCookie(secure: secureCookies)
        return response
    }

    // MARK: - Helpers

    private static let staleForm = "the form is too old or did not come from this page; try again"
    private static let linkGone = NimbusError(.unknownItem, "this set-up link was used or has expired; ask an administrator for a new one")

    /// What a link is for; `.unknownItem` when it is malformed, unknown, used or expired.
    private func setupLinkKind(_ link: String) async throws(NimbusError) -> OperatorService.SetupLink {
        guard Self.isSecret(link), let kind = try await services.operators.setupLink(link) else { throw Self.linkGone }
        return kind
    }

    private func setupValues(_ kind: OperatorService.SetupLink, link: String) -> [String: Any] {
        var values: [String: Any] = ["link": link, "minimumLength": OperatorService.minimumPasswordLength]
        switch kind {
        case .firstAdministrator: values["firstAdministrator"] = true
        case .setPassword(let email): values["setupEmail"] = email
        }
        return values
    }

    /// A page shown before a session: a fresh double-submit cookie with its value in the form.
    private func preSessionPage(
        _ request: Request,
        _ template: String,
        title: String,
        status: HTTPResponse.Status = .ok,
        problem: String? = nil,
        values: [String: Any]
    ) -> Response {
        let formCSRF = existingFormCSRF(request) ?? Hex.string(SymmetricKey(size: .bits128).withUnsafeBytes { Array($0) })
        var all = frame(title, session: nil, problem: problem)
        all.merge(values) { _, new in new }
        all["formCSRF"] = formCSRF
        var response = templates.page(template, status: status, all)
        response.headers[.setCookie] = ConsoleSession.formCookie(formCSRF, secure: secureCookies)
        return response
    }

    private func existingFormCSRF(_ request: Request) -> String? {
        guard let value = request.cookie(ConsoleSession.formCookieName), value.utf8.count == 32, value.allSatisfy(\.isHexDigit) else {
            return nil
        }
        return value
    }

    private func formCSRFMatches(_ request: Request, _ form: FormBody) -> Bool {
        guard let expected = existingFormCSRF(request), let sent = form["csrf"] else { return false }
        return ConstantTime.equal(Array(expected.utf8), Array(sent.utf8))
    }

    private func startSession(_ secret: String) -> Response {
        var response = redirect("/console")
        response.headers[.setCookie] = ConsoleSession.startCookie(secret, secure: secureCookies)
        return response
    }

    /// Links and sessions are 64 hex digits: anything else is not looked up.
    private static func isSecret(_ text: String) -> Bool {
        text.utf8.count == 64 && text.allSatisfy(\.isHexDigit)
    }
}
