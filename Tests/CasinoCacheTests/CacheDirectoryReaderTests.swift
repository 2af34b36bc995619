@_spi(CatalogTools) import CasinoCache
@_spi(CatalogTools) import CasinoCacheTesting
@_spi(CatalogTools) import CasinoCatalog
import Foundation
import Testing

/// ``CacheDirectoryReader``: a cache directory copied from a device, read offline into the report
/// the device would give, each hostile file named, nothing in the directory changed.
@Suite(.timeLimit(.minutes(2)))
struct CacheDirectoryReaderTests {
    let lobby: RestrictedLobby

    init() throws {
        lobby = try RestrictedLobby()
    }

    var cacheDirectory: URL { lobby.directory.child("cache") }

    /// A day on the device: a territory set, a list withdrawing g7 in Canada, the page fetched and
    /// saved, everything flushed.
    func scriptedDay() async throws {
        let cache = lobby.makeCache(bundled: false)
        cache.setTerritory(Territory("CA-ON"))
        try cache.applyWithdrawals(WithdrawalList(sequence: 3, games: [Withdrawal(id: "g7", territories: ["CA"])]))
        lobby.upstream.script(RestrictedLobby.key, .content(.gamesPage(RestrictedLobby.page), etag: "\"v1\""))
        _ = try await cache.content(for: RestrictedLobby.key)
        await cache.flush()
    }

    /// Every file under the cache directory with its bytes and modification time.
    func snapshotOfFiles() throws -> [String: (Data, Date)] {
        var files: [String: (Data, Date)] = [:]
        let root = cacheDirectory.path
        for path in FileManager.default.subpaths(atPath: root) ?? [] {
            let attributes = try FileManager.default.attributesOfItem(atPath: root + "/" + path)
            guard attributes[.type] as? FileAttributeType == .typeRegular else { continue }
            files[path] = (
                try Data(contentsOf: URL(fileURLWithPath: root + "/" + path)),
                attributes[.modificationDate] as? Date ?? .distantPast
            )
        }
        return files
    }

    @Test func aDevicesDirectoryReadsAsTheDeviceWouldAnswerWithEveryReasonAndNothingChanged() async throws {
        try await scriptedDay()
        let before = try snapshotOfFiles()

        let (report, findings) = try CacheDirectoryReader.inspect(
            cacheDirectory, bundle: lobby.bundle, now: lobby.clock.now.addingTimeInterval(60))

        #expect(findings.isEmpty, "\(findings)")
        let entry = try #require(report.entries.first { $0.key == RestrictedLobby.key.description })
        #expect(entry.tier == .disk && entry.source == .network && entry.etag == "\"v1\"" && entry.age == 60)
        #expect(entry.withheld.map(\.id) == ["g0", "g1", "g7"])
        #expect(entry.withheld.last?.reason == .withdrawn && entry.withheld.last?.withdrawalList == 3)
        #expect(report.territory == "CA-ON" && report.withdrawals.sequence == 3)
        #expect(report.snapshot?.source == .bundle && report.statistics.lookups == 0)
        let after = try snapshotOfFiles()
        #expect(after.keys.sorted() == before.keys.sorted())
        for (path, (data, modified)) in before {
            #expect(after[path]?.0 == data && after[path]?.1 == modified, "\(path) changed")
        }
    }

    @Test func hostileFilesAreNamedOneByOneNeverTrustedNeverTouched() async throws {
        try await scriptedDay()
        let manager = FileManager.default
        let entryName = try #require(
            manager.contentsOfDirectory(atPath: cacheDirectory.path).first { $0.hasSuffix(".json.gz") })
        let entryData = try Data(contentsOf: cacheDirectory.appendingPathComponent(entryName))
        let otherKey = CacheKey.gamesPage(english, categoryId: "TABLE", offset: 0)
        let otherName = "g_other_" + String(repeating: "0", count: 16) + ".json.gz"
        // A file of another key, one truncated, a link, a leftover, a stranger, a broken queue file
        try entryData.write(to: cacheDirectory.appendingPathComponent(otherName))
        try entryData.prefix(entryData.count / 2).write(
            to: cacheDirectory.appendingPathComponent("g_truncated_0123456789abcdef.json.gz"))
        try manager.createSymbolicLink(
            atPath: cacheDirectory.appendingPathComponent("g_link_0123456789abcdef.json.gz").path,
            withDestinationPath: "/etc/passwd")
        try Data("half".utf8).write(to: cacheDirectory.appendingPathComponent(".casinocache-1234.tmp"))
        try Data("mine".utf8).write(to: cacheDirectory.appendingPathComponent("notes.txt"))
        try Data("XX-LONG\n".utf8).write(to: cacheDirectory.appendingPathComponent("Territory"))
        for name in ["Withdrawals", "Withdrawals.previous"] {
            try Data("{\"truncated".utf8).write(to: cacheDirectory.appendingPathComponent(name))
        }
        let queue = cacheDirectory.appendingPathComponent("PlayerMutations")
        try manager.createDirectory(at: queue, withIntermediateDirectories: true)
        try Data("{\"format\":\"x\"}\n[]".utf8).write(
            to: queue.appendingPathComponent(String(repeating: "ab", count: 32) + ".mutations"))
        let before = try snapshotOfFiles()

        let (report, findings) = try CacheDirectoryReader.inspect(cacheDirectory, bundle: nil, now: lobby.clock.now)

        let problems = Dictionary(uniqueKeysWithValues: findings.map { ($0.file, $0.problem) })
        #expect(problems[otherName]?.hasPrefix("unreadable:") == true, "\(problems)")
        #expect(problems["g_truncated_0123456789abcdef.json.gz"]?.hasPrefix("unreadable:") == true)
        #expect(problems["g_link_0123456789abcdef.json.gz"]?.hasPrefix("unreadable:") == true)
        #expect(problems[".casinocache-1234.tmp"] == "left by an interrupted write")
        #expect(problems["notes.txt"] == "not ours")
        #expect(problems["Territory"]?.hasPrefix("unreadable:") == true && report.territory == nil)
        #expect(problems["Withdrawals"]?.hasPrefix("unreadable:") == true && report.withdrawals.isLost)
        #expect(
            problems["PlayerMutations/" + String(repeating: "ab", count: 32) + ".mutations"]?.hasPrefix("unreadable:")
                == true)
        #expect(report.entries.map(\.key) == [RestrictedLobby.key.description], "only the good entry is reported")
        #expect(!report.entries.contains { $0.key == otherKey.description })
        let after = try snapshotOfFiles()
        #expect(after.keys.sorted() == before.keys.sorted())
        #expect(after.allSatisfy { path, value in before[path]?.0 == value.0 })
        #expect(
            (try? manager.destinationOfSymbolicLink(
                atPath: cacheDirectory.appendingPathComponent("g_link_0123456789abcdef.json.gz").path)) == "/etc/passwd"
        )
    }

    @Test func aDirectoryThatIsNoCacheIsRefusedWithWhatACacheHolds() throws {
        let stranger = lobby.directory.child("photos")
        try FileManager.default.createDirectory(at: stranger, withIntermediateDirectories: true)
        try Data("jpeg".utf8).write(to: stranger.appendingPathComponent("IMG_0001.jpg"))

        #expect {
            try CacheDirectoryReader.inspect(stranger, bundle: nil, now: Date())
        } throws: { error in
            "\(error)".contains("holds nothing a cache writes") && "\(error)".contains("Territory")
        }
        #expect(throws: CacheDirectoryReader.Refusal.self) {
            try CacheDirectoryReader.inspect(stranger.appendingPathComponent("IMG_0001.jpg"), bundle: nil, now: Date())
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: stranger.path) == ["IMG_0001.jpg"])
    }

    @Test(arguments: [
        "global/en-iPhone/games/SLOTS/0", "user:alice/en-iPhone/categories", "user:a%2Fb/en-iPhone/games/~favourites/0",
    ])
    func aStoredKeyReadsBackAsItself(_ description: String) throws {
        let key = try #require(CacheKey(stored: description))
        #expect(key.description == description)
    }

    @Test(arguments: [
        "", "global", "global/", "user:/en-iPhone/categories", "team:x/en-iPhone/categories", "global/../x",
    ])
    func aStoredKeyThatIsNoKeyIsRefused(_ description: String) {
        #expect(CacheKey(stored: description) == nil)
    }
}
