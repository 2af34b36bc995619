// swift-tools-version:6.2
//
// CasinoCache: a bundled-first cache for casino lobbies. This manifest is what an app adds: the
// runtime (CasinoCache), the snapshot schema it reads (CasinoCatalog), the provider's wire format
// (ProviderAPI) and gzip over the system zlib. Its one package dependency is swift-log (and, off
// Apple platforms only, swift-crypto for CatalogSigning).
//
// The build-time half (the snapshot pipeline, the XML feed reader, the `catalog` CLI, the provider
// simulator and the demo) lives in Tools/, a package that depends on this one by path, so an app
// never resolves its dependencies. The Makefile drives both.
//
// 6.2: the runtime uses `nonisolated(nonsending)`.

import PackageDescription

let package = Package(
    name: "CasinoCache",
    platforms: [.iOS(.v16), .macOS(.v13), .tvOS(.v16), .watchOS(.v9)],
    products: [
        .library(name: "CasinoCache", targets: ["CasinoCache"]),
        .library(name: "CasinoCacheTesting", targets: ["CasinoCacheTesting"]),
        .library(name: "CasinoCatalog", targets: ["CasinoCatalog"]),
        .library(name: "ProviderAPI", targets: ["ProviderAPI"]),
        .library(name: "Gzip", targets: ["Gzip"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2")
    ],
    targets: [
        // The SDK's zlib on Apple platforms (every platform and simulator has one), zlib1g-dev on
        // Linux: a C target over <zlib.h> linking libz, as swift-nio-extras' CNIOExtrasZlib did.
        // Not a pkg-config system library: on a Mac, pkg-config may name Homebrew's macOS-only zlib.
        .target(name: "CZlib", linkerSettings: [.linkedLibrary("z")]),
        .target(name: "Gzip", dependencies: ["CZlib"]),
        // The app-side modules' own plumbing (a locked box, SHA-256, whole-file descriptor I/O), in
        // `package` declarations: not a product, so neither apps nor the tools see it.
        .target(name: "CatalogSupport"),
        // Each target that calls a required-reason API (here `fstat` and `fstatat`, file timestamps: files
        // of the app's own containers, reason C617.1) ships a privacy manifest that declares it;
        // Scripts/check-privacy-manifests.py (make test) keeps the two in step.
        .target(
            name: "CasinoCatalog", dependencies: ["Gzip", "CatalogSupport"],
            resources: [.copy("PrivacyInfo.xcprivacy")]
        ),
        .target(name: "ProviderAPI", dependencies: ["CasinoCatalog"]),
        .target(
            name: "CasinoCache",
            dependencies: [
                "CasinoCatalog", "ProviderAPI", "Gzip", "CatalogSupport",
                .product(name: "Logging", package: "swift-log"),
            ],
            resources: [.copy("PrivacyInfo.xcprivacy")]
        ),
        .target(name: "CasinoCacheTesting", dependencies: ["CasinoCache", "CasinoCatalog", "Gzip", "CatalogSupport"]),

        // The runtime's tests that need neither the pipeline nor the simulator; the rest are in Tools/.
        .testTarget(
            name: "CasinoCatalogTests", dependencies: ["CasinoCatalog", "Gzip", "CasinoCacheTesting"]),
        .testTarget(name: "CatalogSupportTests", dependencies: ["CatalogSupport"]),
        .testTarget(name: "GzipTests", dependencies: ["Gzip", "CasinoCacheTesting"]),
        .testTarget(name: "ProviderAPITests", dependencies: ["ProviderAPI", "CasinoCatalog"]),
        .testTarget(
            name: "CasinoCacheTestingTests", dependencies: ["CasinoCacheTesting", "CasinoCache", "CasinoCatalog"]),
        // Fixtures/: small snapshot directories the pipeline wrote (`make fixtures`; `make test` checks
        // they are current), so the cache's tests read real bundles without building the tools.
        .testTarget(
            name: "CasinoCacheTests",
            dependencies: [
                "CasinoCache", "CasinoCacheTesting", "CasinoCatalog", "CatalogSupport", "Gzip",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "InMemoryLogging", package: "swift-log"),
            ],
            resources: [.copy("Fixtures")]
        ),
    ]
)

// Signature checks off Apple platforms: `Ed25519SignatureVerifier`'s initializers over swift-crypto,
// the same API CasinoCache gives over CryptoKit. A manifest is evaluated on the machine that builds,
// so on a Mac (Xcode, an iOS app) this dependency does not exist and nothing beyond swift-log resolves.
#if !canImport(Darwin)
package.dependencies.append(.package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0"))
package.products.append(.library(name: "CatalogSigning", targets: ["CatalogSigning"]))
package.targets.append(
    .target(name: "CatalogSigning", dependencies: ["CasinoCache", .product(name: "Crypto", package: "swift-crypto")]))
#endif

for target in package.targets where target.type != .system && target.name != "CZlib" {
    var settings = target.swiftSettings ?? []
    settings.append(.swiftLanguageMode(.v6))
    settings.append(.enableUpcomingFeature("ExistentialAny"))
    settings.append(.enableUpcomingFeature("MemberImportVisibility"))
    settings.append(.enableUpcomingFeature("InternalImportsByDefault"))
    target.swiftSettings = settings
}
