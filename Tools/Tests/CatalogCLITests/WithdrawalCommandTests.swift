@_spi(CatalogTools) import CasinoCacheTesting
import Foundation
import Testing

/// `catalog snapshot --withdrawals` and `catalog validate --withdrawals` on the embedded recording:
/// a bundle built today ships no game the provider withdrew, and a bundle that still does fails.
@Suite(.timeLimit(.minutes(5)))
struct WithdrawalCommandTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
    }

    /// The games of every page of the snapshot at `out`, by page path, decompressed by `gzip`.
    func games(in out: URL) throws -> [String: [[String: Any]]] {
        var result: [String: [[String: Any]]] = [:]
        let enumerator = try #require(FileManager.default.enumerator(at: out, includingPropertiesForKeys: nil))
        for case let url as URL in enumerator where url.path.contains("/games/") && url.pathExtension == "gz" {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["gzip", "-dc", url.path]
            let pipe = Pipe()
            process.standardOutput = pipe
            try process.run()
            let data = pipe.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
            let payload = try #require(object["payload"] as? [String: Any])
            result[url.path] = try #require(payload["items"] as? [[String: Any]])
        }
        return result
    }

    @Test func aSnapshotBuiltWithTheListShipsNoWithdrawnGameAndOneBuiltBeforeFailsValidation() async throws {
        // Given a snapshot built before the provider withdrew two games of its first page
        let before = directory.child("before")
        try #require(
            try await CatalogBinary.run(["snapshot", "--source", recordedSource, "--out", before.path, "--quiet"])
                .status == 0
        )
        let pages = try games(in: before)
        let first = try #require(pages.first { $0.key.hasSuffix("/0.json.gz") }?.value)
        let everywhere = try #require(first[0]["id"] as? String)
        let inBritain = try #require(first[1]["id"] as? String)
        let list = directory.child("withdrawals.json")
        try Data(
            #"{"sequence": 3, "games": [{"id": "\#(everywhere)"}, {"id": "\#(inBritain)", "territories": ["gb"]}]}"#
                .utf8
        ).write(to: list)
        // When it is validated against the list, and a snapshot is built with it and validated
        let stale = try await CatalogBinary.run(["validate", before.path, "--withdrawals", list.path])
        let after = directory.child("after")
        let built = try await CatalogBinary.run([
            "snapshot", "--source", recordedSource, "--out", after.path, "--withdrawals", list.path,
        ])
        let valid = try await CatalogBinary.run(["validate", after.path, "--withdrawals", list.path])
        // Then the old snapshot fails naming the game and what to do
        #expect(stale.status == 1, "\(stale.standardError)")
        for part in [
            "game \(everywhere) is withdrawn everywhere", "game \(inBritain) is withdrawn in GB",
            "rebuild with --withdrawals",
        ] {
            #expect(stale.standardError.contains(part), "\(part) in \(stale.standardError)")
        }
        // And the new one leaves the first game out of every page, restricts the second in GB, and validates
        #expect(built.status == 0, "\(built.standardError)")
        #expect(built.standardError.contains("withdrawal list 3:"), "\(built.standardError)")
        #expect(valid.status == 0, "\(valid.standardError)")
        let shipped = try games(in: after).values.flatMap { $0 }
        #expect(!shipped.contains { $0["id"] as? String == everywhere })
        let restricted = shipped.filter { $0["id"] as? String == inBritain }
        #expect(!restricted.isEmpty)
        #expect(restricted.allSatisfy { ($0["restrictedTerritories"] as? [String])?.contains("GB") == true })
    }

    @Test func publishSignsTheListWithTheSetOnlyForASnapshotBuiltWithIt() async throws {
        // Given a key, a snapshot built before a withdrawal, and one built with the list
        try #require(try await CatalogBinary.run(["keygen", "--output", directory.child("keys").path]).status == 0)
        let before = directory.child("before")
        try #require(
            try await CatalogBinary.run(["snapshot", "--source", recordedSource, "--out", before.path, "--quiet"])
                .status == 0
        )
        let game = try #require(try games(in: before).first { $0.key.hasSuffix("/0.json.gz") }?.value[0]["id"])
        let list = directory.child("withdrawals.json")
        try Data(#"{"sequence": 5, "games": [{"id": "\#(game)"}]}"#.utf8).write(to: list)
        let after = directory.child("after")
        try #require(
            try await CatalogBinary.run([
                "snapshot", "--source", recordedSource, "--out", after.path, "--withdrawals", list.path, "--quiet",
            ]).status == 0)
        func publish(_ out: URL) async throws -> CatalogBinary.Result {
            try await CatalogBinary.run([
                "publish", "--from", out.path, "--to", directory.child("published").path, "--key-file",
                directory.child("keys/catalog-signing.key").path, "--withdrawals", list.path,
            ])
        }
        // When each is published with the list
        let stale = try await publish(before)
        let built = try await publish(after)
        // Then the old one is refused naming the game, and the new one's signed manifest carries the list
        #expect(stale.status == 1, "\(stale.standardError)")
        #expect(stale.standardError.contains("game \(game) is withdrawn everywhere"), "\(stale.standardError)")
        #expect(built.status == 0, "\(built.standardError)")
        let signed = try #require(
            try JSONSerialization.jsonObject(
                with: Data(contentsOf: directory.child("published/manifest.json"))) as? [String: Any])
        let base64 = try #require(signed["payload"] as? String)
        let payload = try #require(Data(base64Encoded: base64))
        let manifest = try #require(try JSONSerialization.jsonObject(with: payload) as? [String: Any])
        let withdrawals = try #require(manifest["withdrawals"] as? [String: Any])
        #expect(withdrawals["sequence"] as? Int == 5)
    }

    @Test(arguments: [
        (#"{"sequence": 1, "games": [{"id": "a"}, {"id": 7}]}"#, "games[1].id"),
        (#"{"sequence": 1, "games": [{"id": "a"}, {"id": "a"}]}"#, "games[1]"),
        (#"{"sequence": 0, "games": []}"#, "sequence 0"),
    ])
    func aBadListFailsTheBuildNamingTheFileAndRecordAndLeavesTheLastOutput(_ json: String, _ named: String) async throws
    {
        // Given a good snapshot in out/ and a bad withdrawal list
        let out = directory.child("out")
        try #require(
            try await CatalogBinary.run(["snapshot", "--source", recordedSource, "--out", out.path, "--quiet"]).status
                == 0)
        let manifest = try Data(contentsOf: out.appendingPathComponent("manifest.json"))
        let list = directory.child("bad.json")
        try Data(json.utf8).write(to: list)
        // When a snapshot is built with it
        let result = try await CatalogBinary.run([
            "snapshot", "--source", recordedSource, "--out", out.path, "--withdrawals", list.path,
        ])
        // Then it fails as bad input naming the file and the record, and out/ is as it was
        #expect(result.status == 65, "\(result.standardError)")
        #expect(
            result.standardError.contains("bad.json") && result.standardError.contains(named), "\(result.standardError)"
        )
        #expect(try Data(contentsOf: out.appendingPathComponent("manifest.json")) == manifest)
    }
}
