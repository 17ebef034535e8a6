//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Foundation
import HTTPTypes
import Hummingbird
import NimbusEngine
import NimbusModel
import NimbusStore

/// The page behind a share's URL, `{base}/share/{shortGUID}`, for people who open an
/// invitation in a browser.
///
/// `GET` shows what the share is to the visitor, with `og:` tags for link previews, a link into
/// the container's app (its URL scheme, or the fallback URL, with the short GUID appended) and,
/// for a signed-in visitor who may join, an accept button. `POST` (the button) accepts.
/// A visitor is signed in by a `ckWebAuthToken` query parameter (form field for `POST`), as
/// CloudKit JS passes tokens to redirect targets.
///
/// Decision: the URL is a capability. Anyone holding it learns which app it opens; only those
/// who may see the share (participants, or anyone for a public share) see its title and owner.
struct SharePage {
    let database: DatabaseService
    let accounts: AccountService
    /// Where the server is reached, for the link a preview carries.
    let publicAddress: PublicAddress
    /// The pages' templates (`pages/share*.mustache`).
    let templates: PageTemplates

    /// The longest short GUID a link carries.
    static let maximumShortGUIDLength = 64

    func respond(to request: Request, shortGUID: String) async -> Response {
        do {
            switch request.method {
            case .get, .head:
                return try await show(shortGUID, token: request.uri.queryParameters["ckWebAuthToken"].map(String.init))
            case .post:
                let form = try await request.body.collect(upTo: 16 * 1024)
                let token = FormBody(String(buffer: form))["ckWebAuthToken"]
                return try await accept(shortGUID, token: token)
            default:
                return message(.methodNotAllowed, title: "Not allowed", text: "Open this link in a browser.")
            }
        } catch {
            return message(.serviceUnavailable, title: "Try again", text: "The server could not answer just now; try again.")
        }
    }

    // MARK: - Private

    private var notFound: Response {
        message(.notFound, title: "Invitation not found", text: "This invitation link is not valid.")
    }

    private func show(_ shortGUID: String, token: String?) async throws -> Response {
        guard let location = try await database.shareLocation(shortGUID: shortGUID) else {
            return notFound
        }
        let container = location.container
        let reader = try await accounts.signedInUser(webAuthToken: token, container: container)
        guard let preview = try await database.sharePreview(shortGUID: shortGUID, reader: reader) else {
            return notFound
        }
        let settings = try await accounts.containerSettings(container)
        let title = preview.isVisible ? preview.title ?? "A shared item" : "You have been invited"
        var values = appLinks(shortGUID, settings)
        values["title"] = title
        values["shortGUID"] = shortGUID
        values["preview"] = [
            "description": preview.isVisible
                ? "\(preview.ownerName ?? "Someone") shared this with you." : "Open the invitation to see what was shared with you.",
            "url": "\(publicAddress.value)/share/\(shortGUID)",
        ]
        if preview.isVisible {
            var visible: [String: Any] = ["shareTitle": title]
            if let owner = preview.ownerName { visible["owner"] = owner }
            if preview.isOwner {
                visible["isOwner"] = true
            } else if preview.status == .accepted {
                visible["joined"] = true
            } else if let token, preview.mayAccept {
                visible["accept"] = ["token": token]
            } else if reader == nil {
                values["signIn"] = signInLink(shortGUID, location: location, text: "Sign in or create an account to join")
            }
            values["visible"] = visible
        } else if reader == nil {
            values["signIn"] = signInLink(shortGUID, location: location, text: "Sign in or create an account with the address you were invited at")
        } else {
            values["notForThisAccount"] = true
        }
        return page(.ok, "share", values)
    }

    private func accept(_ shortGUID: String, token: String?) async throws -> Response {
        guard let location = try await database.shareLocation(shortGUID: shortGUID),
            let reader = try await accounts.signedInUser(webAuthToken: token, container: location.container)
        else {
            return message(.forbidden, title: "Sign in first", text: "Sign in with the invited account, then open the link again.")
        }
        let access = DatabaseAccess(
            caller: Caller(container: location.container, environment: location.environment, kind: .user, userRecordName: reader),
            scope: .shared
        )
        let settings = try await accounts.containerSettings(location.container)
        let results = try await database.acceptShares([ShareLookup(shortGUID: shortGUID)], access: access)
        switch results.first {
        case .success(let metadata)?:
            var values = appLinks(shortGUID, settings)
            values["title"] = "Joined"
            values["shareTitle"] = metadata.share.shareTitle ?? "the shared item"
            return page(.ok, "share-joined", values)
        case .failure(let error)?:
            return message(.forbidden, title: "Cannot join", text: error.reason)
        case nil:
            return message(.forbidden, title: "Cannot join", text: "This invitation cannot be accepted.")
        }
    }

    /// A link to the sign-in page that comes back here signed in: a person without an account
    /// signs up and accepts in one flow.
    private func signInLink(_ shortGUID: String, location: ContainerEnvironment, text: String) -> [String: String] {
        let page = "/signin/\(location.container)/\(location.environment.rawValue)?return=" + FormEncoding.component("/share/\(shortGUID)")
        return ["href": page, "text": text]
    }

    /// The links to the app and to where to get it, as the container's settings give them.
    private func appLinks(_ shortGUID: String, _ settings: ContainerSettings) -> [String: Any] {
        var values: [String: Any] = [:]
        if let scheme = settings.appURLScheme { values["open"] = "\(scheme)://share/\(shortGUID)" }
        if let fallback = settings.fallbackURL { values["fallback"] = fallback + shortGUID }
        values["hasAppLinks"] = settings.appURLScheme != nil || settings.fallbackURL != nil
        values["both"] = settings.appURLScheme != nil && settings.fallbackURL != nil
        return values
    }

    /// The page's URL may carry a web auth token: it must not leak to sites it links to.
    static let referrerPolicy = HTTPField.Name("Referrer-Policy")!

    /// A page of the share templates, with the headers every share page has.
    private func page(_ status: HTTPResponse.Status, _ template: String, _ values: [String: Any]) -> Response {
        Self.response(status, html: templates.render(template, values))
    }

    /// A page that says one thing.
    private func message(_ status: HTTPResponse.Status, title: String, text: String) -> Response {
        page(status, "message", ["title": title, "heading": title, "text": text])
    }

    static func response(_ status: HTTPResponse.Status, html: String) -> Response {
        Response(
            status: status,
            headers: [
                .contentType: "text/html; charset=utf-8", .cacheControl: "no-store", Self.referrerPolicy: "no-referrer",
                SignInPage.contentSecurityPolicy:
                    "default-src 'none'; style-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
            ],
            body: .init(byteBuffer: ByteBuffer(string: html))
        )
    }
}
