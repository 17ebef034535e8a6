//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import NimbusEngine
import NimbusModel
import NimbusStore

/// The sign-in page a `421`'s `redirectURL` names: `{base}/signin/{container}/{environment}`.
///
/// A person signs up or in there, in the ways the container environment allows, and the page
/// hands the token back as CloudKit JS expects (spec §10.2):
/// - with `callback` (a registered URL): a redirect to it with `ckWebAuthToken` and `ckSession`
///   (and the app's `state`) in the query, or in the fragment with `tokenIn=fragment`;
/// - with `origin` (the origin of a registered callback URL, for a page opened as a popup):
///   a `postMessage` of `{ckWebAuthToken, ckSession, state}` to the opener at that origin only;
/// - with `return` (an invitation page of this server, `/share/{shortGUID}`): back there, signed
///   in, so a person invited by a link signs up and accepts in one flow;
/// - with none: a page saying the person is signed in, and no token anywhere.
///
/// Forms carry the checked callback, origin and state sealed with the server's key
/// (``SignInFlow``) and a CSRF token that must match a `SameSite=Strict`, `HttpOnly` cookie.
/// A callback or origin not registered, a changed flow, or a missing CSRF match is a `4xx` in
/// the CloudKit error shape, before anything is created.
struct SignInPage: Sendable {
    let services: HTTPServices
    let publicAddress: PublicAddress
    /// Seals ``SignInFlow``s: derived from the server's token key, for this use only.
    let flowKey: SymmetricKey
    /// The pages' HTML, from their templates.
    let pages: SignInPageHTML

    static let csrfCookie = "nimbus_signin_csrf"
    static let contentSecurityPolicy = HTTPField.Name("Content-Security-Policy")!
    static let frameOptions = HTTPField.Name("X-Frame-Options")!

    /// The page of the container a database or notification path names
    /// (`/database/1/{container}/{environment}/...`): the `redirectURL` of a `421`.
    static func url(forRequestPath path: String, base: String) -> String {
        let segments = path.split(separator: "/")
        let container = segments.dropFirst(2).first.map(String.init) ?? ""
        let environment = segments.dropFirst(3).first.flatMap { Environment(parsing: $0) } ?? .development
        return "\(base)/signin/\(container)/\(environment.rawValue)"
    }

    func add(to router: some RouterMethods<NimbusRequestContext>) {
        for path in ["/signin/:container", "/signin/:container/:environment"] {
            router.route(RouterPath(path), methods: [.get, .head, .post]) { request, context in
                try await respond(to: request, context: context)
            }
        }
        // Where a provider sends the browser back: a GET, or a form post (Sign in with Apple).
        router.route("/signin/:container/:environment/provider/:provider/callback", methods: [.get, .post]) { request, context in
            try await providerCallback(request, context: context)
        }
    }

    private func respond(to request: Request, context: NimbusRequestContext) async throws -> Response {
        let container = context.parameters.get("container") ?? ""
        let environmentName = context.parameters.get("environment") ?? Environment.development.rawValue
        guard let environment = Environment(parsing: Substring(environmentName)) else {
            throw NimbusError.badRequest("unknown environment '\(environmentName.prefix(64))'; use development or production")
        }
        let target = ContainerEnvironment(container: container, environment: environment)
        guard try await services.accounts.exists(target) else {
            throw NimbusError(.unknownItem, "container \(container.prefix(255)) has no \(environment.rawValue) environment")
        }
        let settings = try await services.signIn.settings(target)
        let path = "/signin/\(container)/\(environment.rawValue)"
        if request.method == .post {
            var request = request
            let body = try await request.collectBody(upTo: 64 * 1024)
            return try await submit(
                FormBody(String(buffer: body)),
                request: request,
                context: context,
                target: target,
                settings: settings,
                path: path
            )
        }
        let flow = try checkedFlow(request.uri.queryParameters, target: target, settings: settings)
        let csrf = existingCSRF(request) ?? Hex.string(Array(SymmetricKey(size: .bits128).withUnsafeBytes { Array($0) }))
        let hidden = SignInPageHTML.Hidden(flow: flow.sealed(with: flowKey), csrf: csrf, action: path)
        var response = html(.ok, pages.forms(container: container, settings: settings, hidden: hidden, message: nil))
        response.headers[.setCookie] = cookie(csrf)
        return response
    }

    // MARK: - Opening

    /// The flow a page's query asks for, checked against the registered callback URLs.
    private func checkedFlow(_ query: Hummingbird.Parameters, target: ContainerEnvironment, settings: SignInSettings) throws(NimbusError)
        -> SignInFlow
    {
        var flow = SignInFlow(
            container: target.container,
            environment: target.environment.rawValue,
            tokenInFragment: query["tokenIn"] == "fragment",
            issuedAt: services.signIn.now
        )
        if let callback = query["callback"].map(String.init) {
            guard let url = CallbackURL(callback), url.isRegistered(in: settings, environment: target.environment) else {
                throw .badRequest("callback \(callback.prefix(200)) is not a registered callback URL of this container")
            }
            flow.callback = callback
        }
        if let origin = query["origin"].map(String.init) {
            guard let url = CallbackURL(origin + "/"), url.path == "/", url.origin == origin.lowercased(),
                url.isAllowed,
                (url.isLoopback && target.environment == .development)
                    || settings.callbackURLs.contains(where: { CallbackURL($0)?.origin == url.origin })
            else {
                throw .badRequest("origin \(origin.prefix(200)) is not the origin of a registered callback URL of this container")
            }
            flow.origin = url.origin
        }
        if let path = query["return"].map(String.init) {
            let guid = path.dropFirst("/share/".count)
            guard path.hasPrefix("/share/"), (1...SharePage.maximumShortGUIDLength).contains(guid.utf8.count),
                guid.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") })
            else {
                throw .badRequest("return must be an invitation page of this server, /share/{shortGUID}")
            }
            flow.returnPath = path
        }
        if let state = query["state"].map(String.init) {
            guard state.utf8.count <= 1024 else { throw .badRequest("state must have at most 1024 bytes") }
            flow.state = state
        }
        return flow
    }

    // MARK: - Submitting

    private func submit(
        _ form: FormBody,
        request: Request,
        context: NimbusRequestContext,
        target: ContainerEnvironment,
        settings: SignInSettings,
        path: String
    ) async throws -> Response {
        guard let csrf = existingCSRF(request), let sent = form["csrf"],
            ConstantTime.equal(Array(csrf.utf8), Array(sent.utf8))
        else {
            throw NimbusError(.permissionFailure, "the sign-in form did not come from this page; open the page again")
        }
        guard let flow = SignInFlow.open(form["flow"] ?? "", with: flowKey, now: services.signIn.now),
            flow.container == target.container, flow.environment == target.environment.rawValue
        else {
            throw NimbusError.badRequest("the sign-in form was changed or is too old; open the page again")
        }
        // Registrations may have changed since the page opened: the callback must still be one.
        if let callback = flow.callback {
            guard let url = CallbackURL(callback), url.isRegistered(in: settings, environment: target.environment) else {
                throw NimbusError.badRequest("callback \(callback.prefix(200)) is no longer a registered callback URL")
            }
        }
        let hidden = SignInPageHTML.Hidden(flow: form["flow"] ?? "", csrf: csrf, action: path)
        let signInContext = SignInContext(
            container: target.container,
            environment: target.environment,
            clientAddress: context.clientAddress,
            device: request.headers[.userAgent].map { String($0.prefix(AuthRoutes.maximumDeviceLength)) }
        )
        let anonymous = Caller(container: target.container, environment: target.environment, kind: .anonymous, userRecordName: nil)
        let signIn = services.signIn
        do {
            switch form["action"] {
            case "signin":
                return try deliver(await signIn.signIn(email: form["email"], password: form["password"], context: signInContext), flow: flow)
            case "anonymous":
                return try deliver(await signIn.signUpAnonymously(name: form["name"], context: signInContext), flow: flow)
            case "signup":
                _ = try await signIn.signUp(email: form["email"], password: form["password"], name: form["name"], context: signInContext)
                return html(.ok, pages.codeForm(email: form["email"] ?? "", hidden: hidden, message: nil, resetting: false))
            case "code":
                _ = try await signIn.requestCode(email: form["email"], name: nil, context: signInContext)
                return html(.ok, pages.codeForm(email: form["email"] ?? "", hidden: hidden, message: nil, resetting: false))
            case "provider":
                return try await beginProvider(form["provider"] ?? "", flow: form["flow"] ?? "", target: target, context: signInContext)
            case "verify":
                let signedIn = try await signIn.verify(
                    email: form["email"],
                    code: form["code"],
                    newPassword: form["password"],
                    caller: anonymous,
                    context: signInContext
                )
                return try deliver(signedIn, flow: flow)
            default:
                throw NimbusError.badRequest("unknown form action")
            }
        } catch let error as NimbusError where [.authenticationFailed, .badRequest, .requestRateLimited, .permissionFailure].contains(error.code) {
            // The person tries again on the same page, told what went wrong.
            let status = error.code.httpStatus
            if form["action"] == "verify", let email = form["email"] {
                return html(status, pages.codeForm(email: email, hidden: hidden, message: error.reason, resetting: false))
            }
            return html(
                status,
                pages.forms(container: target.container, settings: settings, hidden: hidden, message: error.reason, email: form["email"])
            )
        }
    }

    // MARK: - Providers

    /// The URL a provider sends the browser back to, as registered with the provider.
    private func callbackURL(_ provider: String, target: ContainerEnvironment) -> String {
        "\(publicAddress.value)/signin/\(target.container)/\(target.environment.rawValue)/provider/\(FormEncoding.component(provider))/callback"
    }

    /// Sends the browser to the provider, keeping what finishing needs in an encrypted cookie.
    private func beginProvider(_ provider: String, flow: String, target: ContainerEnvironment, context: SignInContext) async throws -> Response {
        let authorization = try await services.signIn.beginProviderSignIn(
            provider: provider,
            redirectURI: callbackURL(provider, target: target),
            context: context
        )
        let cookie = ProviderSignInCookie(
            provider: provider,
            state: authorization.state,
            verifier: authorization.verifier,
            nonce: authorization.nonce,
            flow: flow,
            issuedAt: services.signIn.now
        )
        guard let sealed = cookie.sealed(with: flowKey) else { throw NimbusError(.internalError, "the sign-in could not be sealed") }
        return Response(
            status: .seeOther,
            headers: [
                .location: authorization.url, .cacheControl: "no-store", SharePage.referrerPolicy: "no-referrer",
                .setCookie: providerCookie(sealed, maxAge: Int(ProviderSignInCookie.lifetime / 1000)),
            ]
        )
    }

    private func providerCallback(_ request: Request, context: NimbusRequestContext) async throws -> Response {
        let container = context.parameters.get("container") ?? ""
        let environmentName = context.parameters.get("environment") ?? ""
        let provider = context.parameters.get("provider") ?? ""
        guard let environment = Environment(parsing: Substring(environmentName)) else {
            throw NimbusError.badRequest("unknown environment '\(environmentName.prefix(64))'")
        }
        let target = ContainerEnvironment(container: container, environment: environment)
        var fields: [String: String] = [:]
        for name in ["code", "state", "error"] { fields[name] = request.uri.queryParameters[Substring(name)].map(String.init) }
        if request.method == .post {
            var request = request
            let form = FormBody(String(buffer: try await request.collectBody(upTo: 64 * 1024)))
            for name in ["code", "state", "error"] { fields[name] = form[name] ?? fields[name] }
        }
        let now = services.signIn.now
        guard let value = request.cookie(ProviderSignInCookie.name),
            let cookie = ProviderSignInCookie.open(value, with: flowKey, now: now), cookie.provider == provider,
            let state = fields["state"], ConstantTime.equal(Array(state.utf8), Array(cookie.state.utf8)),
            let flow = SignInFlow.open(cookie.flow, with: flowKey, now: now), flow.container == container, flow.environment == environment.rawValue
        else {
            throw NimbusError.badRequest("this sign-in did not begin in this browser, or took too long; open the sign-in page again")
        }
        let settings = try await services.signIn.settings(target)
        if let error = fields["error"] {
            var response = html(
                .unauthorized,
                pages.forms(
                    container: container,
                    settings: settings,
                    hidden: .init(
                        flow: cookie.flow,
                        csrf: request.cookie(Self.csrfCookie) ?? "",
                        action: "/signin/\(container)/\(environment.rawValue)"
                    ),
                    message: "\(provider) did not sign you in (\(error.prefix(64)))."
                )
            )
            response.headers[.setCookie] = providerCookie("", maxAge: 0)
            return response
        }
        let signedIn = try await services.signIn.finishProviderSignIn(
            provider: provider,
            code: fields["code"],
            authorization: cookie.authorization,
            redirectURI: callbackURL(provider, target: target),
            context: SignInContext(
                container: container,
                environment: environment,
                clientAddress: context.clientAddress,
                device: request.headers[.userAgent].map { String($0.prefix(AuthRoutes.maximumDeviceLength)) }
            )
        )
        var response = try deliver(signedIn, flow: flow)
        response.headers[.setCookie] = providerCookie("", maxAge: 0)
        return response
    }

    /// The provider cookie: sent back on the provider's redirect (a top-level GET: `Lax`) or,
    /// over HTTPS, on its cross-site form post too (`None`, which needs `Secure`).
    private func providerCookie(_ value: String, maxAge: Int) -> String {
        let https = publicAddress.value.lowercased().hasPrefix("https://")
        let sameSite = https ? "None; Secure" : "Lax"
        return "\(ProviderSignInCookie.name)=\(value); Path=/signin; HttpOnly; SameSite=\(sameSite); Max-Age=\(maxAge)"
    }

    /// Hands the token back the way the flow says.
    private func deliver(_ signedIn: SignedIn, flow: SignInFlow) throws -> Response {
        if let callback = flow.callback {
            var parameters = [("ckWebAuthToken", signedIn.webAuthToken), ("ckSession", signedIn.webAuthToken)]
            if let state = flow.state { parameters.append(("state", state)) }
            let encoded = parameters.map { "\($0.0)=\(FormEncoding.component($0.1))" }.joined(separator: "&")
            let location: String
            if flow.tokenInFragment {
                location = callback.split(separator: "#", maxSplits: 1).first.map(String.init)! + "#" + encoded
            } else {
                location = callback + (callback.contains("?") ? "&" : "?") + encoded
            }
            return Response(status: .seeOther, headers: [.location: location, .cacheControl: "no-store", SharePage.referrerPolicy: "no-referrer"])
        }
        if let path = flow.returnPath {
            let location = path + "?ckWebAuthToken=" + FormEncoding.component(signedIn.webAuthToken)
            return Response(status: .seeOther, headers: [.location: location, .cacheControl: "no-store", SharePage.referrerPolicy: "no-referrer"])
        }
        if let origin = flow.origin {
            let nonce = Hex.string(Array(SymmetricKey(size: .bits128).withUnsafeBytes { Array($0) }))
            return html(
                .ok,
                pages.postMessage(token: signedIn.webAuthToken, state: flow.state, origin: origin, scriptNonce: nonce),
                scriptNonce: nonce
            )
        }
        return html(.ok, pages.signedIn())
    }

    // MARK: - Helpers

    private func html(_ status: HTTPResponse.Status, _ page: String, scriptNonce: String? = nil) -> Response {
        let scripts = scriptNonce.map { "'nonce-\($0)'" } ?? "'none'"
        return Response(
            status: status,
            headers: [
                .contentType: "text/html; charset=utf-8",
                .cacheControl: "no-store",
                SharePage.referrerPolicy: "no-referrer",
                Self.contentSecurityPolicy:
                    "default-src 'none'; style-src 'self'; script-src \(scripts); frame-ancestors 'none'; base-uri 'none'",
                Self.frameOptions: "DENY",
            ],
            body: .init(byteBuffer: ByteBuffer(string: page))
        )
    }

    private func existingCSRF(_ request: Request) -> String? {
        guard let value = request.cookie(Self.csrfCookie), value.utf8.count == 32, value.allSatisfy(\.isHexDigit) else { return nil }
        return value
    }

    private func cookie(_ value: String) -> String {
        let secure = publicAddress.value.lowercased().hasPrefix("https://") ? "; Secure" : ""
        return "\(Self.csrfCookie)=\(value); Path=/signin; HttpOnly; SameSite=Strict; Max-Age=3600\(secure)"
    }
}
