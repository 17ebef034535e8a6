//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension SMTPConfiguration {
    /// Reads an SMTP URL, as `nimbus serve --smtp-url` and `NIMBUS_SMTP_URL` take it.
    ///
    /// `SCHEME://[USER:PASSWORD@]HOST[:PORT]?from=ADDRESS[&from_name=NAME]`
    ///
    /// | scheme | security | default port |
    /// |---|---|---|
    /// | `smtp` | ``Security/startTLS``, required | 587 |
    /// | `smtps` | ``Security/tls`` (implicit TLS) | 465 |
    /// | `smtp+plain` | ``Security/none``: only for a loopback host | 25 |
    ///
    /// `smtp://` always requires STARTTLS, on loopback too: whether mail is encrypted never
    /// depends on what a server (or someone between it and us) offers, and an unencrypted relay
    /// has to be asked for by name. `smtp+plain://` is refused for any host but `localhost`,
    /// `127.0.0.0/8` and `::1`, because the sign-in codes in the mail, and the password, would
    /// cross the network readable by anyone on the path.
    ///
    /// The user name and password are percent-decoded (`p%40ss` is `p@ss`); so are `from` and
    /// `from_name`. An unknown parameter is an error, so a misspelt one is not silently ignored.
    ///
    /// - Throws: ``SMTPError`` with code ``SMTPError/Code/invalidConfiguration``, whose message
    ///   never holds the password.
    public init(url: String) throws(SMTPError) {
        func invalid(_ message: String) -> SMTPError { SMTPError(.invalidConfiguration, message) }
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased() else {
            throw invalid("the SMTP URL does not parse")
        }
        let security: Security
        switch scheme {
        case "smtp": security = .startTLS
        case "smtps": security = .tls
        case "smtp+plain": security = .none
        default: throw invalid("the SMTP URL's scheme must be smtp (STARTTLS), smtps (TLS) or smtp+plain (loopback only), not \(scheme)")
        }
        guard var host = components.host, !host.isEmpty else { throw invalid("the SMTP URL names no host") }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        if let port = components.port, !(1...65535).contains(port) { throw invalid("the SMTP URL's port must be from 1 to 65535") }
        guard components.path.isEmpty || components.path == "/" else { throw invalid("an SMTP URL has no path") }
        var from: String?
        var fromName: String?
        for item in components.queryItems ?? [] {
            switch item.name {
            case "from": from = item.value
            case "from_name": fromName = item.value
            default: throw invalid("unknown SMTP URL parameter \(item.name)")
            }
        }
        guard let from, !from.isEmpty else { throw invalid("the SMTP URL needs ?from=ADDRESS, the sender of the mail") }
        // Foundation keeps `user:@host` as an empty password; both mean "no password" here.
        let username = components.user.flatMap { $0.isEmpty ? nil : $0 }
        let password = components.password.flatMap { $0.isEmpty ? nil : $0 }
        self.init(host: host, port: components.port, security: security, username: username, password: password, from: from, fromName: fromName)
        try validate()
    }

    /// Checks what a configuration built in code could get wrong, as ``init(url:)`` does.
    ///
    /// - Throws: ``SMTPError`` with code ``SMTPError/Code/invalidConfiguration``.
    public func validate() throws(SMTPError) {
        func invalid(_ message: String) -> SMTPError { SMTPError(.invalidConfiguration, message) }
        if security == .none, !Self.isLoopback(host) {
            throw invalid("unencrypted SMTP (smtp+plain) is only for a server on this machine; use smtp:// (STARTTLS) or smtps://")
        }
        guard (1...65535).contains(port) else { throw invalid("the SMTP port must be from 1 to 65535") }
        guard timeout > .zero else { throw invalid("the SMTP timeout must be positive") }
        switch (username, password) {
        case (nil, nil): break
        case (.some, .some): break
        case (.some, nil): throw invalid("the SMTP user name needs a password")
        case (nil, .some): throw invalid("the SMTP password needs a user name")
        }
        // The credentials go into AUTH as they are: a line break would end the command early.
        if let username, username.unicodeScalars.contains(where: MailAddress.isForbiddenInHeader) {
            throw invalid("the SMTP user name holds a control character")
        }
        if let password, password.unicodeScalars.contains(where: MailAddress.isForbiddenInHeader) {
            throw invalid("the SMTP password holds a control character")
        }
        if let fromName, fromName.unicodeScalars.contains(where: MailAddress.isForbiddenInHeader) {
            throw invalid("from_name holds a line break or control character")
        }
        do {
            _ = try MailAddress(from)
        } catch {
            throw invalid("from is not a usable address: \(error.message)")
        }
    }
}
