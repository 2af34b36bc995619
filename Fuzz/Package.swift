// swift-tools-version:6.2
//
// libFuzzer entry points for every decoder that reads hostile bytes: gzip with caps, snapshot and
// manifest decoding with the schema's rules, the XML feed reader, the provider's DTOs and their
// mapping, the normalized catalogue file, what catalogue sync reads (validation answers, push payloads), the disk tier's entry files, the player's offline
// mutation queue file and routes, image sniffing with the manifest's images section, and the
// validator on a snapshot directory with one fuzzed file. Run with `make fuzz` (it builds with `--sanitize
// fuzzer --sanitize address` and seeds each corpus from data/ and out/); `make test` does not
// run them.

import Foundation
import PackageDescription

// SwiftPM names a path dependency after its directory, which differs between checkouts.
let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().lastPathComponent

let package = Package(
    name: "CasinoCacheFuzz",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(path: ".."),
        .package(path: "../Tools"),
    ],
    targets: [
        .executableTarget(name: "fuzz-gzip", dependencies: [.product(name: "Gzip", package: root)]),
        .executableTarget(
            name: "fuzz-snapshot",
            dependencies: [.product(name: "CasinoCatalog", package: root), .product(name: "Gzip", package: root)]
        ),
        .executableTarget(
            name: "fuzz-xml",
            dependencies: [
                .product(name: "XMLGameFeed", package: "Tools"), .product(name: "CasinoCatalog", package: root),
            ]
        ),
        .executableTarget(
            name: "fuzz-provider",
            dependencies: [
                .product(name: "ProviderAPI", package: root), .product(name: "CasinoCatalog", package: root),
            ]
        ),
        .executableTarget(
            name: "fuzz-sync",
            dependencies: [
                .product(name: "CasinoCache", package: root), .product(name: "ProviderAPI", package: root),
                .product(name: "CasinoCatalog", package: root),
            ]
        ),
        .executableTarget(
            name: "fuzz-images",
            dependencies: [
                .product(name: "CatalogPipeline", package: "Tools"), .product(name: "CasinoCatalog", package: root),
            ]
        ),
        .executableTarget(
            name: "fuzz-cache-dir",
            dependencies: [
                .product(name: "CasinoCache", package: root), .product(name: "CasinoCatalog", package: root),
            ]
        ),
        .executableTarget(
            name: "fuzz-disk",
            dependencies: [
                .product(name: "CasinoCache", package: root), .product(name: "CasinoCatalog", package: root),
            ]
        ),
        .executableTarget(
            name: "fuzz-index",
            dependencies: [
                .product(name: "CasinoCache", package: root), .product(name: "CasinoCatalog", package: root),
            ]
        ),
        .executableTarget(
            name: "fuzz-player",
            dependencies: [
                .product(name: "CasinoCache", package: root), .product(name: "ProviderAPI", package: root),
                .product(name: "CasinoCatalog", package: root),
            ]
        ),
        .executableTarget(
            name: "fuzz-withdrawals",
            dependencies: [
                .product(name: "CasinoCache", package: root), .product(name: "CasinoCatalog", package: root),
            ]
        ),
        .executableTarget(
            name: "fuzz-normalized",
            dependencies: [
                .product(name: "CatalogPipeline", package: "Tools"), .product(name: "CasinoCatalog", package: root),
            ]
        ),
        .executableTarget(
            name: "fuzz-validator",
            dependencies: [
                .product(name: "CatalogPipeline", package: "Tools"), .product(name: "CasinoCatalog", package: root),
            ]
        ),
    ]
)

for target in package.targets {
    target.swiftSettings = [.swiftLanguageMode(.v6)]
}
