// swift-tools-version:6.2
//
// The build-time half of CasinoCache: the snapshot pipeline, the XML feed reader, the `catalog`
// CLI, the provider simulator (`catalog-server`) and the demo, with the tests that need them
// (the cache's tests that talk to the simulator over loopback HTTP among them; the cache's other
// tests read committed bundles in the root package). It depends on the app-side package in the
// parent folder by path, so an app that adds the repository never resolves swift-nio,
// AsyncHTTPClient, Hummingbird, swift-crypto or swift-argument-parser. Run it through the Makefile
// (`make snapshot`, `make test`).

import Foundation
import PackageDescription

// SwiftPM names a path dependency after its directory, which differs between checkouts.
let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().lastPathComponent

// The root's swift-crypto verifier (`CatalogSigning`) exists off Apple platforms only; on a Mac,
// CasinoCache's CryptoKit one serves `catalog update` and the tests.
#if canImport(Darwin)
let signing: [Target.Dependency] = []
#else
let signing: [Target.Dependency] = [.product(name: "CatalogSigning", package: root)]
#endif

let package = Package(
    name: "CasinoCacheTools",
    platforms: [.macOS(.v13)],
    products: [
        .library(name: "XMLGameFeed", targets: ["XMLGameFeed"]),
        .library(name: "CatalogPipeline", targets: ["CatalogPipeline"]),
        .library(name: "CatalogServer", targets: ["CatalogServer"]),
        .executable(name: "catalog", targets: ["catalog"]),
        .executable(name: "catalog-server", targets: ["catalog-server"]),
        .executable(name: "catalog-demo", targets: ["catalog-demo"]),
    ],
    dependencies: [
        .package(path: ".."),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        // Already in the graph through swift-nio; named for the pipeline's exclusive file creation.
        .package(url: "https://github.com/apple/swift-system.git", from: "1.4.0"),
        // No default traits: the simulator needs neither swift-configuration nor full Foundation.
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1", traits: []),
        // Already in the graph through Hummingbird; named so the simulator can shut down gracefully.
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CLibXML2",
            pkgConfig: "libxml-2.0",
            providers: [.apt(["libxml2-dev"]), .brew(["libxml2"])]
        ),
        .target(name: "CFileSwap"),
        .target(
            name: "XMLGameFeed",
            dependencies: [
                "CLibXML2",
                .product(name: "CasinoCatalog", package: root),
                .product(name: "ProviderAPI", package: root),
            ]
        ),
        .target(
            name: "CatalogPipeline",
            dependencies: [
                "XMLGameFeed", "CFileSwap",
                .product(name: "CasinoCatalog", package: root),
                .product(name: "ProviderAPI", package: root),
                .product(name: "Gzip", package: root),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPCompression", package: "swift-nio-extras"),
                .product(name: "SystemPackage", package: "swift-system"),
            ]
        ),
        .target(
            name: "CatalogServer",
            dependencies: [
                "CatalogPipeline",
                .product(name: "CasinoCatalog", package: root),
                .product(name: "ProviderAPI", package: root),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .executableTarget(
            name: "catalog-server",
            dependencies: [
                "CatalogServer",
                .product(name: "CasinoCatalog", package: root),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(
            name: "catalog-demo",
            dependencies: [
                "CatalogServer", "CatalogPipeline",
                .product(name: "CasinoCache", package: root),
                .product(name: "CasinoCacheTesting", package: root),
                .product(name: "CasinoCatalog", package: root),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ]
        ),
        .executableTarget(
            name: "catalog",
            dependencies: [
                "CatalogPipeline",
                .product(name: "CasinoCache", package: root),
                .product(name: "CasinoCatalog", package: root),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ] + signing
        ),

        // Runs the built `catalog` binary as a subprocess: exit codes and messages.
        .testTarget(name: "CatalogCLITests", dependencies: [.product(name: "CasinoCacheTesting", package: root)]),
        .testTarget(
            name: "XMLGameFeedTests",
            dependencies: [
                "XMLGameFeed", .product(name: "ProviderAPI", package: root),
                .product(name: "CasinoCacheTesting", package: root),
            ]
        ),
        // The DocC quick start's lobby screen: an @Observable model (and a SwiftUI view on Apple
        // platforms), compiled and tested here so it cannot rot.
        .target(
            name: "LobbyExample",
            dependencies: [
                .product(name: "CasinoCache", package: root), .product(name: "CasinoCatalog", package: root),
            ],
            path: "Examples/Lobby"
        ),

        // The cache's tests that need the simulator, the pipeline or the CLI; the rest are in the root.
        .testTarget(
            name: "CasinoCacheTests",
            dependencies: signing + [
                "CatalogPipeline", "CatalogServer", "LobbyExample",
                .product(name: "CasinoCache", package: root),
                .product(name: "CasinoCacheTesting", package: root),
                .product(name: "CasinoCatalog", package: root),
                .product(name: "Gzip", package: root),
                .product(name: "ProviderAPI", package: root),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "CatalogServerTests",
            dependencies: [
                "CatalogServer", "CatalogPipeline",
                .product(name: "CasinoCacheTesting", package: root),
                .product(name: "CasinoCatalog", package: root),
                .product(name: "ProviderAPI", package: root),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "CatalogPipelineTests",
            dependencies: [
                "CatalogPipeline", "CatalogServer",
                .product(name: "CasinoCacheTesting", package: root),
                .product(name: "CasinoCatalog", package: root),
                .product(name: "ProviderAPI", package: root),
                .product(name: "Gzip", package: root),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "InMemoryLogging", package: "swift-log"),
            ]
        ),
    ]
)

for target in package.targets where target.type != .system && target.name != "CFileSwap" {
    var settings = target.swiftSettings ?? []
    settings.append(.swiftLanguageMode(.v6))
    settings.append(.enableUpcomingFeature("ExistentialAny"))
    settings.append(.enableUpcomingFeature("MemberImportVisibility"))
    settings.append(.enableUpcomingFeature("InternalImportsByDefault"))
    target.swiftSettings = settings
}
