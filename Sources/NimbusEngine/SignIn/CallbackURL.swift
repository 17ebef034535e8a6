//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import NimbusModel
public import NimbusStore

/// A URL the browser sign-in flow may send a token to: where an app receives it.
///
/// Decision: registered URLs match exactly (scheme, host, port and path; the query the flow
/// adds is not part of it), so no open redirect can be built from a registered prefix. A
/// loopback URL (`http://127.0.0.1`, `http://localhost`, `http://[::1]`) matches any port, as
/// RFC 8252 asks for native apps and the CLI (`nimbus login --browser`), and is accepted in
/// development without being registered. Production takes HTTPS, and plain-HTTP loopback URLs
/// only once registered (RFC 8252 §8.3: loopback traffic never leaves the machine).
public struct CallbackURL: Sendable, Hashable {
    /// `http` or `https`.
    public var scheme: String
    /// The host, lowercased (an IPv6 address without its brackets).
    public var host: String
    /// The port, if the URL names one.
    public var port: Int?
    /// The path, `/` if empty.
    public var path: String

    /// Parses an absolute `http` or `https` URL without user information or fragment.
    public init?(_ url: String) {
        let lowered = url.lowercased()
        let scheme: String
        if lowered.hasPrefix("https://") {
            scheme = "https"
        } else if lowered.hasPrefix("http://") {
            scheme = "http"
        } else {
            return nil
        }
        let rest = url.dropFirst(scheme.count + 3)
        guard !rest.contains("#") else { return nil }
        let beforeQuery = rest.prefix { $0 != "?" }
        let authority = beforeQuery.prefix { $0 != "/" }
        let path = beforeQuery.dropFirst(authority.count)
        guard !authority.isEmpty, !authority.contains("@"), !authority.contains("\\") else { return nil }
        var host: Substring
        var portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            host = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { return nil }
                portText = after.dropFirst()
            }
        } else {
            let parts = authority.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            host = parts[0]
            if parts.count == 2 { portText = parts[1] }
        }
        guard !host.isEmpty else { return nil }
        if let portText {
            guard let port = Int(portText), (1...65535).contains(port) else { return nil }
            self.port = port
        } else {
            self.port = nil
        }
        self.scheme = scheme
        self.host = host.lowercased()
        self.path = path.isEmpty ? "/" : String(path)
    }

    /// Whether the host is this machine's loopback.
    public var isLoopback: Bool { host == "127.0.0.1" || host == "::1" || host == "localhost" }

    /// The origin (`https://app.example.com:8443`), which `postMessage` targets.
    public var origin: String {
        let hostPart = host.contains(":") ? "[\(host)]" : host
        return "\(scheme)://\(hostPart)" + (port.map { ":\($0)" } ?? "")
    }

    /// Whether the URL may be a callback at all: HTTPS, or plain HTTP on loopback.
    public var isAllowed: Bool {
        scheme == "https" || isLoopback
    }

    /// Whether this URL is one `settings` registers (or a loopback one development accepts).
    public func isRegistered(in settings: SignInSettings, environment: Environment) -> Bool {
        guard isAllowed else { return false }
        if isLoopback && environment == .development { return true }
        return settings.callbackURLs.contains { registered in
            guard let registered = CallbackURL(registered) else { return false }
            if registered.isLoopback && isLoopback {
                return registered.scheme == scheme && registered.path == path
            }
            return registered == self
        }
    }
}
