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

/// A PostgreSQL database and how Nimbus uses it, read from a `postgres://` URL.
///
/// `postgres://USER:PASSWORD@HOST:PORT/DATABASE?schema=S&pool_size=N&statement_timeout=MS&wait_timeout=MS&sslmode=M&prepared_statements=N`
///
/// - `schema`: the schema Nimbus's tables live in, created if missing (default `public`). Lets
///   several Nimbus deployments, or test runs, share one database.
/// - `pool_size`: the most connections one Nimbus process opens (default 16).
/// - `statement_timeout`: milliseconds a statement may run before the server cancels it
///   (default 30000), so a runaway query cannot hold a connection forever.
/// - `wait_timeout`: milliseconds a request waits for a free connection, or for the database to
///   come back, before it fails with `TRY_AGAIN_LATER` (default 5000).
/// - `sslmode`: `disable`, `prefer` (the default, as in libpq) or `require`.
/// - `prepared_statements`: the most statements each connection prepares (default 256), so
///   PostgreSQL parses and plans each once per connection rather than on every run; `0` sends
///   every statement unnamed, for a pooler that cannot keep prepared statements (PgBouncer in
///   transaction mode before 1.21, or without `max_prepared_statements`).
///
/// The password never appears in ``description``.
public struct PostgresLocation: Sendable, Equatable, CustomStringConvertible {
    /// How the connection is encrypted.
    public enum TLSMode: String, Sendable {
        case disable, prefer, require
    }

    public var host: String
    public var port: Int
    public var username: String
    public var password: String?
    public var database: String
    public var schema: String?
    public var poolSize: Int
    public var statementTimeoutMilliseconds: Int
    public var connectionWaitMilliseconds: Int
    public var tls: TLSMode
    public var preparedStatements: Int

    /// Whether `url` names a PostgreSQL database (rather than an SQLite file).
    public static func isPostgresURL(_ url: String) -> Bool {
        url.hasPrefix("postgres://") || url.hasPrefix("postgresql://")
    }

    /// Reads a `postgres://` or `postgresql://` URL.
    public init(url: String) throws(StoreLocationError) {
        guard Self.isPostgresURL(url), let components = URLComponents(string: url) else {
            throw StoreLocationError("not a postgres:// URL")
        }
        guard let host = components.host, !host.isEmpty else { throw StoreLocationError("the URL names no host") }
        guard let username = components.user, !username.isEmpty else { throw StoreLocationError("the URL names no user") }
        let database = String(components.path.drop(while: { $0 == "/" }))
        guard !database.isEmpty else { throw StoreLocationError("the URL names no database") }
        self.host = host
        self.port = components.port ?? 5432
        self.username = username
        self.password = components.password
        self.database = database
        self.schema = nil
        self.poolSize = 16
        self.statementTimeoutMilliseconds = 30_000
        self.connectionWaitMilliseconds = 5_000
        self.tls = .prefer
        self.preparedStatements = 256
        for item in components.queryItems ?? [] {
            let value = item.value ?? ""
            switch item.name {
            case "schema":
                guard Self.isPlainIdentifier(value) else {
                    throw StoreLocationError("schema must be letters, digits and _, starting with a letter or _")
                }
                schema = value
            case "pool_size":
                guard let size = Int(value), (1...1000).contains(size) else {
                    throw StoreLocationError("pool_size must be a number from 1 to 1000")
                }
                poolSize = size
            case "statement_timeout":
                guard let timeout = Int(value), timeout >= 0 else {
                    throw StoreLocationError("statement_timeout must be milliseconds, 0 for none")
                }
                statementTimeoutMilliseconds = timeout
            case "wait_timeout":
                guard let timeout = Int(value), timeout > 0 else {
                    throw StoreLocationError("wait_timeout must be a positive number of milliseconds")
                }
                connectionWaitMilliseconds = timeout
            case "sslmode":
                guard let mode = TLSMode(rawValue: value) else {
                    throw StoreLocationError("sslmode must be disable, prefer or require")
                }
                tls = mode
            case "prepared_statements":
                guard let count = Int(value), (0...10_000).contains(count) else {
                    throw StoreLocationError("prepared_statements must be a number from 0 to 10000")
                }
                preparedStatements = count
            default:
                throw StoreLocationError("unknown URL parameter \(item.name)")
            }
        }
    }

    /// The URL without its password.
    public var description: String {
        var text = "postgres://\(username)\(password == nil ? "" : ":***")@\(host):\(port)/\(database)"
        if let schema { text += "?schema=\(schema)" }
        return text
    }

    /// Whether `name` can be written into SQL as an identifier without quoting.
    private static func isPlainIdentifier(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard let first = bytes.first, bytes.count <= 63 else { return false }
        func isLetter(_ byte: UInt8) -> Bool { (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || byte == UInt8(ascii: "_") }
        func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }
        return isLetter(first) && bytes.allSatisfy { isLetter($0) || isDigit($0) }
    }
}

/// A database location that cannot be used, and why.
public struct StoreLocationError: Error, Sendable, CustomStringConvertible {
    public var description: String

    init(_ description: String) {
        self.description = description
    }
}
