// swift-tools-version:6.1
import PackageDescription

/// The benchmark harness: a load generator that drives a release build of `nimbus serve` over
/// HTTP and measures, in the same run, the references its figures are compared with.
let package = Package(
    name: "nimbus-benchmarks",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "nimbus-load", targets: ["NimbusLoad"])
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket.git", from: "2.8.1"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        // The SDK, for its overhead against the same requests sent raw.
        .package(name: "nimbus", path: ".."),
    ],
    targets: [
        .systemLibrary(
            name: "CSQLiteBench",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        .executableTarget(
            name: "NimbusLoad",
            dependencies: [
                "CSQLiteBench",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NimbusClient", package: "nimbus"),
                .product(name: "NimbusModel", package: "nimbus"),
            ],
            swiftSettings: [.enableUpcomingFeature("ExistentialAny")]
        ),
    ]
)
