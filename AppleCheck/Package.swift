// swift-tools-version:6.2
//
// `make apple-check`: type-checks the app side's Apple-only branches on Linux. The app-side modules
// are built again here from the same sources (symbolic links to ../Sources), beside two stand-ins
// named like the Apple frameworks: `CryptoKit` (swift-crypto: the same API) and `Combine`
// (OpenCombine), so `#if canImport(CryptoKit)` and `#if canImport(Combine)` hold and those branches
// compile. What sits behind `#if canImport(Darwin)` still cannot be compiled here (the README lists
// it). A separate package: neither an app nor `make test` resolves or builds it.

import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "AppleCheck",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/OpenCombine/OpenCombine.git", from: "0.14.0"),
    ],
    targets: [
        .target(name: "CryptoKit", dependencies: [.product(name: "Crypto", package: "swift-crypto")]),
        .target(name: "Combine", dependencies: [.product(name: "OpenCombine", package: "OpenCombine")]),
        // The root package's app-side targets, as it declares them.
        .target(name: "CZlib", linkerSettings: [.linkedLibrary("z")]),
        .target(name: "Gzip", dependencies: ["CZlib"], swiftSettings: swiftSettings),
        .target(name: "CatalogSupport", dependencies: ["CryptoKit"], swiftSettings: swiftSettings),
        .target(
            name: "CasinoCatalog", dependencies: ["Gzip", "CatalogSupport"],
            resources: [.copy("PrivacyInfo.xcprivacy")],
            swiftSettings: swiftSettings),
        .target(name: "ProviderAPI", dependencies: ["CasinoCatalog"], swiftSettings: swiftSettings),
        .target(
            name: "CasinoCache",
            dependencies: [
                "CasinoCatalog", "ProviderAPI", "Gzip", "CatalogSupport", "CryptoKit", "Combine",
                .product(name: "Logging", package: "swift-log"),
            ],
            resources: [.copy("PrivacyInfo.xcprivacy")],
            swiftSettings: swiftSettings
        ),
    ]
)
