// swift-tools-version:6.1
import PackageDescription

/// Settings every Nimbus target builds with: Swift 6 language mode plus the upcoming features the
/// model codebases (Hummingbird, PostgresNIO) use, so `public import` marks what leaks into API.
let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

/// Tests import what they use without the API-surface discipline of library targets.
let testSwiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny")
]

let package = Package(
    name: "nimbus",
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        .executable(name: "nimbus", targets: ["NimbusCLI"]),
        .library(name: "NimbusModel", targets: ["NimbusModel"]),
        .library(name: "NimbusWire", targets: ["NimbusWire"]),
        .library(name: "NimbusServer", targets: ["NimbusServer"]),
        .library(name: "NimbusClient", targets: ["NimbusClient"]),
        .library(name: "NimbusTesting", targets: ["NimbusTesting"]),
    ],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket.git", from: "2.8.1"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache.git", from: "2.1.1"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-configuration.git", from: "1.4.0"),
        .package(url: "https://github.com/apple/swift-system.git", from: "1.8.1"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/vapor/jwt-kit.git", from: "5.8.0"),
        .package(url: "https://github.com/vapor/multipart-kit.git", from: "4.7.1"),
        .package(url: "https://github.com/apple/swift-nio-http2.git", from: "1.46.0"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]
        ),
        // SQLite's WAL writes gathered into one call per commit (a VFS over the default one).
        .target(
            name: "CNimbusSQLite",
            dependencies: ["CSQLite"],
            linkerSettings: [.linkedLibrary("sqlite3")]
        ),
        .target(
            name: "NimbusModel",
            swiftSettings: swiftSettings
        ),
        .target(
            name: "NimbusStore",
            dependencies: ["NimbusModel"],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "NimbusSQL",
            dependencies: [
                "CSQLite",
                "CNimbusSQLite",
                .product(name: "Crypto", package: "swift-crypto"),
                "NimbusModel",
                "NimbusStore",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "NimbusEngine",
            dependencies: [
                "NimbusModel",
                "NimbusStore",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "NimbusWire",
            dependencies: ["NimbusModel"],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "NimbusHTTP",
            dependencies: [
                "NimbusEngine",
                "NimbusModel",
                "NimbusStore",
                "NimbusWeb",
                "NimbusWire",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "MultipartKit", package: "multipart-kit"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Mustache", package: "swift-mustache"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            resources: [.copy("OpenAPI/openapi.json")],
            swiftSettings: swiftSettings
        ),
        // The files the server hands to browsers: nimbus.js (the JavaScript client) and the
        // bundled apps. No Swift dependency: they are bytes with a content type.
        .target(
            name: "NimbusWeb",
            resources: [.copy("Resources")],
            swiftSettings: swiftSettings
        ),
        // Pushes to Apple's push service (HTTP/2, provider tokens) for the engine's APNs delivery.
        .target(
            name: "NimbusAPNs",
            dependencies: [
                "NimbusEngine",
                "NimbusModel",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "NimbusServer",
            dependencies: [
                "NimbusAPNs",
                "NimbusEngine",
                "NimbusHTTP",
                "NimbusModel",
                "NimbusSQL",
                "NimbusStore",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        // The SDK: speaks the wire protocol to any Nimbus (or CloudKit) server; never imports a
        // server module.
        .target(
            name: "NimbusClient",
            dependencies: [
                "NimbusModel",
                "NimbusWire",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        // Shipped test support for apps that use the SDK.
        .target(
            name: "NimbusTesting",
            dependencies: [
                "NimbusClient",
                "NimbusEngine",
                "NimbusHTTP",
                "NimbusModel",
                "NimbusServer",
                "NimbusStore",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "NimbusCLI",
            dependencies: [
                "NimbusAPNs",
                "NimbusClient",
                "NimbusEngine",
                "NimbusHTTP",
                "NimbusModel",
                "NimbusServer",
                "NimbusStore",
                "NimbusWeb",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Configuration", package: "swift-configuration"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            swiftSettings: swiftSettings
        ),
        // What the test targets share: the database each test runs on (SQLite or PostgreSQL).
        .target(
            name: "NimbusTestSupport",
            dependencies: [
                "NimbusSQL",
                "NimbusStore",
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tests/NimbusTestSupport",
            swiftSettings: testSwiftSettings
        ),
        .testTarget(
            name: "NimbusModelTests",
            dependencies: ["NimbusModel"],
            swiftSettings: testSwiftSettings
        ),
        .testTarget(
            name: "NimbusSQLTests",
            dependencies: ["NimbusModel", "NimbusSQL", "NimbusStore", "NimbusTestSupport"],
            swiftSettings: testSwiftSettings
        ),
        .testTarget(
            name: "NimbusEngineTests",
            dependencies: ["NimbusEngine", "NimbusModel", "NimbusSQL", "NimbusStore", "NimbusTestSupport"],
            swiftSettings: testSwiftSettings
        ),
        .testTarget(
            name: "NimbusHTTPTests",
            dependencies: [
                "NimbusAPNs",
                "NimbusTesting",
                "NimbusEngine",
                "NimbusHTTP",
                "NimbusModel",
                "NimbusServer",
                "NimbusWire",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdHTTP2", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                "NimbusSQL",
                "NimbusStore",
                "NimbusTestSupport",
            ],
            exclude: ["Fixtures"],
            swiftSettings: testSwiftSettings
        ),
        .testTarget(
            name: "NimbusClientTests",
            dependencies: [
                "NimbusClient",
                "NimbusEngine",
                "NimbusModel",
                "NimbusServer",
                "NimbusTesting",
                "NimbusTestSupport",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: testSwiftSettings
        ),
        .testTarget(
            name: "NimbusWireTests",
            dependencies: ["NimbusModel", "NimbusWire"],
            swiftSettings: testSwiftSettings
        ),
        .testTarget(
            name: "EndToEndTests",
            dependencies: ["NimbusModel", "NimbusTestSupport"],
            swiftSettings: testSwiftSettings
        ),
    ]
)
