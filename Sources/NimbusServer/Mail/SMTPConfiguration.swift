//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

/// Where ``SMTPMailer`` hands its mail over: the operator's SMTP server, how the connection is
/// encrypted, the credentials, and the sender.
///
/// Usually read from a URL with ``init(url:)``. The password never appears when a configuration
/// is printed, reflected or dumped, nor in anything that holds one.
public struct SMTPConfiguration: Sendable {
    /// How the connection to the server is encrypted.
    public enum Security: String, Sendable, Hashable {
        /// No encryption: only for a relay on this machine (development, or a local MTA).
        case none
        /// A plain connection upgraded with `STARTTLS` before anything else is said (RFC 3207),
        /// usually on port 587. A server that does not offer it is not used.
        case startTLS
        /// TLS from the first byte ("implicit TLS", RFC 8314), usually on port 465.
        case tls
    }

    /// The server's host name or IP address.
    public var host: String
    /// The server's port.
    public var port: Int
    /// How the connection is encrypted.
    public var security: Security
    /// The user name for `AUTH`; `nil`: the server takes mail without credentials.
    public var username: String?
    /// The password for `AUTH`. A secret: never printed.
    public var password: String?
    /// The envelope sender and the `From` address, such as `nimbus@example.com`.
    public var from: String
    /// The name shown with the `From` address, such as `Nimbus`; `nil`: the address alone.
    public var fromName: String?
    /// Certificates (PEM) trusted besides the system's: for a server with a private CA.
    public var additionalTrustRootsPEM: String?
    /// How long connecting, and then each of the server's replies, may take. Default 30 seconds:
    /// a server that stopped answering fails the message instead of holding the outbox.
    public var timeout: Duration

    /// Creates a configuration.
    /// - Parameters:
    ///   - host: The server's host name or IP address.
    ///   - port: The server's port; default: 587 with STARTTLS, 465 with TLS, 25 without either.
    ///   - security: How the connection is encrypted (default ``Security/startTLS``).
    ///   - username: The user name for `AUTH`, if the server wants credentials.
    ///   - password: The password for `AUTH`.
    ///   - from: The sender's address.
    ///   - fromName: The name shown with the sender's address.
    ///   - additionalTrustRootsPEM: Certificates (PEM) trusted besides the system's.
    ///   - timeout: How long connecting and each reply may take.
    public init(
        host: String,
        port: Int? = nil,
        security: Security = .startTLS,
        username: String? = nil,
        password: String? = nil,
        from: String,
        fromName: String? = nil,
        additionalTrustRootsPEM: String? = nil,
        timeout: Duration = .seconds(30)
    ) {
        self.host = host
        self.port = port ?? Self.defaultPort(for: security)
        self.security = security
        self.username = username
        self.password = password
        self.from = from
        self.fromName = fromName
        self.additionalTrustRootsPEM = additionalTrustRootsPEM
        self.timeout = timeout
    }

    /// The port a security is usually served on.
    static func defaultPort(for security: Security) -> Int {
        switch security {
        case .none: 25
        case .startTLS: 587
        case .tls: 465
        }
    }

    /// Whether `host` names this machine: the only place mail may travel unencrypted.
    static func isLoopback(_ host: String) -> Bool {
        let host = host.lowercased()
        if host == "localhost" || host.hasSuffix(".localhost") || host == "::1" || host == "[::1]" { return true }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts[0] == "127" && parts.allSatisfy { UInt8($0) != nil }
    }
}
