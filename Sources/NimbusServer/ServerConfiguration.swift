//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import NimbusAPNs
public import NimbusEngine
public import NimbusHTTP

/// How to run a Nimbus server; every value has a documented default.
///
/// Only executables build this from flags and the environment (see `nimbus serve --help`);
/// libraries and tests pass values.
public struct ServerConfiguration: Sendable {
    /// Where the embedded SQLite database and the server's keys live. Default `./nimbus-data`.
    public var dataDirectory: String
    /// A `postgres://` URL (see `PostgresLocation`) to keep the data in PostgreSQL instead of the
    /// data directory's SQLite file. Default `nil`: SQLite.
    public var databaseURL: String?
    /// The address to listen on. Default `127.0.0.1`: only this machine.
    public var hostname: String
    /// The port to listen on; 0 picks a free one. Default 8080.
    public var port: Int
    /// The server's public URL, for links it hands out; default `http://{hostname}:{port}`.
    /// Trailing slashes are dropped, so links never hold `//`.
    public var publicBaseURL: String? {
        didSet { publicBaseURL = publicBaseURL.map(Self.withoutTrailingSlashes) }
    }
    /// A base64 256-bit key for encrypted fields; default: the key in the data directory, made
    /// on first start. Must stay the same for the life of the data.
    public var fieldEncryptionKey: String?
    /// A base64 256-bit key that seals change tokens and cursors; default: the key in the data
    /// directory. Instances that serve the same database need the same one.
    public var tokenKey: String?
    /// The largest request body accepted, in bytes. Default 16 MiB.
    public var maximumBodySize: Int
    /// How far a signed request's date may be from the server's clock, in seconds. Default 300.
    public var signatureDateWindowSeconds: Int
    /// How long tombstones of deleted records are kept for the change feeds; `nil` keeps them
    /// forever. Default 30 days. A client that has not synced for longer must sync from scratch.
    public var tombstoneRetention: Duration?
    /// How long a notification stays in its recipient's inbox, for clients that reconnect
    /// with `after` (seven days by default).
    public var inboxRetention: Duration
    /// How long the dispatcher waits after a write before turning it into notifications, to
    /// handle a burst together (zero by default: at once).
    public var notificationDelay: Duration
    /// Apple's push service: the team's key and where APNs is. `nil` (the default): no APNs
    /// pushes; devices still register their tokens, and get what is owed once it is configured.
    public var apns: APNsConfiguration?
    /// The most connections held open at once; beyond it, new ones wait in the listen queue.
    /// `nil` (the default): the descriptor limit (raised to the hard limit at start) less 64
    /// kept for the database and other files.
    public var maximumConnections: Int?
    /// How long a new connection may take to send its first byte. Default 10 seconds.
    public var firstByteTimeout: Duration = .seconds(10)
    /// How long a new connection may take to send its first request's head (request line and
    /// headers, WebSocket upgrades included). Default 30 seconds.
    public var requestHeadTimeout: Duration = .seconds(30)
    /// The cost of new password hashes (scrypt's parameters); see BENCHMARKS.md for what each
    /// step costs a core.
    public var passwordHashing: PasswordHasher.Parameters = .standard
    /// The SMTP server that sign-in mail goes through. `nil` (the default): mail is written to
    /// the log instead (``LogMailer``), which suits development only.
    public var smtp: SMTPConfiguration?
    /// Asset limits and the retention of uploads no record references.
    public var assets = AssetService.Configuration()
    /// Where asset bytes are kept: `nil` (the default), the data directory's `assets/`; or an
    /// S3-compatible bucket, which several instances share.
    public var assetStore: S3Configuration?
    /// The bundled web apps served under `/apps/{name}/` (`nimbus serve --apps chat`); none by
    /// default, so a server shows only what its operator chose.
    public var apps: [WebApp] = []
    /// Whether every request is logged at info level (`NIMBUS_ACCESS_LOG=off` turns it off).
    public var accessLog = true
    /// An operator's directory of page replacements (`NIMBUS_PAGES_DIR`): `nimbus.css` and
    /// console templates of the bundled names.
    public var pagesDirectory: String?
    /// The certificate and key the server speaks TLS with (`--tls-cert`, `--tls-key`), read
    /// again when their files change; `nil`: plain HTTP (behind a proxy that speaks TLS).
    public var tls: TLSCertificates?

    /// Creates a configuration with the defaults above.
    public init(
        dataDirectory: String = "./nimbus-data",
        databaseURL: String? = nil,
        hostname: String = "127.0.0.1",
        port: Int = 8080,
        publicBaseURL: String? = nil,
        fieldEncryptionKey: String? = nil,
        tokenKey: String? = nil,
        maximumBodySize: Int = 16 * 1024 * 1024,
        signatureDateWindowSeconds: Int = 300,
        tombstoneRetention: Duration? = .seconds(30 * 24 * 3600),
        inboxRetention: Duration = .seconds(7 * 24 * 3600),
        notificationDelay: Duration = .zero,
        apns: APNsConfiguration? = nil
    ) {
        self.dataDirectory = dataDirectory
        self.databaseURL = databaseURL
        self.hostname = hostname
        self.port = port
        self.publicBaseURL = publicBaseURL.map(Self.withoutTrailingSlashes)
        self.fieldEncryptionKey = fieldEncryptionKey
        self.tokenKey = tokenKey
        self.maximumBodySize = maximumBodySize
        self.signatureDateWindowSeconds = signatureDateWindowSeconds
        self.tombstoneRetention = tombstoneRetention
        self.inboxRetention = inboxRetention
        self.notificationDelay = notificationDelay
        self.apns = apns
    }

    /// The SQLite database file inside the data directory.
    public var databasePath: String { dataDirectory + "/nimbus.sqlite" }

    private static func withoutTrailingSlashes(_ url: String) -> String {
        var url = Substring(url)
        while url.hasSuffix("/") { url = url.dropLast() }
        return String(url)
    }
}
