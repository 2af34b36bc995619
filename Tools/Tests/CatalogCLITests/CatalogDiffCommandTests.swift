@_spi(CatalogTools) import CasinoCacheTesting
import Foundation
import Testing

/// `catalog diff` as a release engineer runs it on a pull request: the embedded data against a copy
/// in which the provider renamed a game.
@Suite(.timeLimit(.minutes(5)))
struct CatalogDiffCommandTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
    }

    @Test func markdownNamesTheRenamedGameAndTheChangedPageAndExitsOne() async throws {
        // Given a snapshot of data/provider, and one of a copy whose first video slot is renamed
        let before = directory.child("before")
        try #require(
            try await CatalogBinary.run(["snapshot", "--source", recordedSource, "--out", before.path, "--quiet"])
                .status == 0
        )
        let copy = directory.child("provider")
        try FileManager.default.copyItem(at: URL(fileURLWithPath: recordedSource), to: copy)
        let page = copy.appendingPathComponent("en-iPhone/games/videoslots-d4a8b457ac/0.json")
        var object = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: page)) as? [String: Any])
        var items = try #require(object["items"] as? [[String: Any]])
        let oldName = try #require(items[0]["name"] as? String)
        items[0]["name"] = "Renamed | for *review*"
        object["items"] = items
        try JSONSerialization.data(withJSONObject: object).write(to: page)
        let after = directory.child("after")
        try #require(
            try await CatalogBinary.run(["snapshot", "--source", copy.path, "--out", after.path, "--quiet"]).status == 0
        )
        // When they are compared as Markdown, and a snapshot with itself
        let diff = try await CatalogBinary.run(["diff", before.path, after.path, "--format", "markdown"])
        let same = try await CatalogBinary.run(["diff", before.path, before.path, "--format", "markdown"])
        // Then the table names the edition's one rename and changed page, the name escaped, and exits 1
        #expect(diff.status == 1, "\(diff.standardError)")
        #expect(diff.standardOutput.contains("| en-iPhone | +0 −0 | +0 −0 | 1 | +0 −0 ~1 |"), "\(diff.standardOutput)")
        #expect(diff.standardOutput.contains("\(oldName) → Renamed \\| for \\*review\\*"), "\(diff.standardOutput)")
        #expect(same.status == 0 && same.standardOutput.contains("No content or image differs"))
        print(diff.standardOutput)
    }
}
