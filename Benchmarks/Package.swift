// swift-tools-version:6.2
//
// The benchmarks live in their own package so `swift build` and `make test` never
// build them. Run them with `make bench` (release build).

import Foundation
import PackageDescription

// SwiftPM names a path dependency after its directory, which differs between checkouts.
let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().lastPathComponent

let package = Package(
    name: "CasinoCacheBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(path: ".."),
        .package(path: "../Tools"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        // The SHA-256 floor of the synchronize rows; the Tools package resolves it already.
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0"),
    ],
    targets: [
        .executableTarget(
            name: "cache-bench",
            dependencies: [
                .product(name: "CasinoCache", package: root),
                .product(name: "CasinoCacheTesting", package: root),
                .product(name: "CasinoCatalog", package: root),
                .product(name: "CatalogPipeline", package: "Tools"),
                .product(name: "Gzip", package: root),
                .product(name: "ProviderAPI", package: root),
                .product(name: "XMLGameFeed", package: "Tools"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)]
        )
    ]
)
