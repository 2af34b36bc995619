// swift-tools-version:6.1
//
// CasinoCache: a bundled-first cache for casino lobbies, and the pipeline that bakes the
// provider's catalogue into the snapshots the cache ships with.
//
// Boundary: what an app imports (CasinoCatalog, ProviderAPI, Gzip and CasinoCache)
// depends on Foundation, zlib and swift-log only. libxml2, swift-crypto, AsyncHTTPClient and
// swift-nio (the fetcher), Hummingbird (the provider simulator) and swift-argument-parser are
// build-time and test-time dependencies.

import PackageDescription

let package = Package(
    name: "CasinoCache",
    platforms: [.iOS(.v16), .macOS(.v13), .tvOS(.v16), .watchOS(.v9)],
    products: [
        .library(name: "CasinoCatalog", targets: ["CasinoCatalog"]),
        .library(name: "ProviderAPI", targets: ["ProviderAPI"]),
        .library(name: "Gzip", targets: ["Gzip"]),
        .library(name: "CasinoCache", targets: ["CasinoCache"]),
        .library(name: "XMLGameFeed", targets: ["XMLGameFeed"]),
        .library(name: "CatalogPipeline", targets: ["CatalogPipeline"]),
        .library(name: "CatalogServer", targets: ["CatalogServer"]),
        .executable(name: "catalog", targets: ["catalog"]),
        .executable(name: "catalog-server", targets: ["catalog-server"]),
        .executable(name: "catalog-demo", targets: ["catalog-demo"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        // No default traits: the simulator needs neither swift-configuration nor full Foundation.
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1", traits: []),
        // Already in the graph through Hummingbird; named so the simulator can shut down gracefully.
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
    ],
    targets: [
        // System libraries.
        .systemLibrary(
            name: "CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"]), .brew(["zlib"])]
        ),
        .systemLibrary(
            name: "CLibXML2",
            pkgConfig: "libxml-2.0",
            providers: [.apt(["libxml2-dev"]), .brew(["libxml2"])]
        ),

        // What an app imports.
        .target(name: "Gzip", dependencies: ["CZlib"]),
        .target(name: "CasinoCatalog", dependencies: ["Gzip"]),
        .target(name: "ProviderAPI", dependencies: ["CasinoCatalog"]),
        .target(
            name: "CasinoCache",
            dependencies: ["CasinoCatalog", "ProviderAPI", "Gzip", .product(name: "Logging", package: "swift-log")]
        ),

        // Build time.
        .target(name: "XMLGameFeed", dependencies: ["CasinoCatalog", "ProviderAPI", "CLibXML2"]),
        .target(name: "CFileSwap"),
        .target(
            name: "CatalogPipeline",
            dependencies: [
                "CasinoCatalog", "ProviderAPI", "Gzip", "XMLGameFeed", "CFileSwap",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPCompression", package: "swift-nio-extras"),
            ]
        ),
        .target(
            name: "CatalogServer",
            dependencies: [
                "CasinoCatalog", "ProviderAPI", "CatalogPipeline",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .executableTarget(
            name: "catalog-server",
            dependencies: [
                "CatalogServer", "CasinoCatalog",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(
            name: "catalog-demo",
            dependencies: [
                "CatalogServer", "CasinoCache", "CasinoCatalog", "CatalogPipeline",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(
            name: "catalog",
            dependencies: [
                "CatalogPipeline", "CasinoCatalog",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),

        // Tests.
        .testTarget(name: "CasinoCatalogTests", dependencies: ["CasinoCatalog"]),
        .testTarget(name: "GzipTests", dependencies: ["Gzip"]),
        .testTarget(name: "ProviderAPITests", dependencies: ["ProviderAPI", "CasinoCatalog"]),
        .testTarget(name: "XMLGameFeedTests", dependencies: ["XMLGameFeed", "ProviderAPI"]),
        .testTarget(
            name: "CasinoCacheTests",
            dependencies: [
                "CasinoCache", "CasinoCatalog", "Gzip", "CatalogPipeline", "CatalogServer", "ProviderAPI",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "CatalogServerTests",
            dependencies: [
                "CatalogServer", "CasinoCatalog", "ProviderAPI",
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
                "CatalogPipeline", "CasinoCatalog", "ProviderAPI", "Gzip", "CatalogServer",
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
