@_spi(CatalogTools) import CasinoCatalog
@_spi(CatalogTools) import CatalogPipeline
import Foundation
@_spi(CatalogTools) import Gzip
@_spi(CatalogTools) import ProviderAPI
@_spi(CatalogTools) import XMLGameFeed

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The pipeline at 10k and 100k generated games against the sum of its stage floors, the XML
/// reader against `xmllint --stream`, and the validator against sha256 + gunzip + decode.
func pipelineBenchmarks(work: URL) throws -> [Result] {
    try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
    var results: [Result] = []
    var pipelineMedians: [Int: Double] = [:]
    var stagePeaks: [Int: [(stage: String, mebibytes: Int)]] = [:]
    let edition = try Edition(id: "en-iPhone")
    for games in [10_000, 100_000] {
        let recording = work.appendingPathComponent("recording-\(games)")
        var sample = SampleRecording(games: games, categories: 20)
        sample.editions = [edition]
        try sample.write(to: recording)
        let configuration = PipelineConfiguration.everyPage
        let runs = games <= 10_000 ? 3 : 1
        var pipeline: [Double] = []
        var manifest: Manifest?
        for run in 0..<runs {
            let out = work.appendingPathComponent("out-\(games)-\(run)")
            let start = clock.now
            manifest = try writeSnapshot(
                of: RecordedProviderSource(directory: recording, limits: configuration.limits), configuration, to: out)
            pipeline.append(nanoseconds(clock.now - start))
            if run > 0 { try? FileManager.default.removeItem(at: out) }
        }
        let peakKB = peakResidentKilobytes()
        // The floors need the pages at hand: the whole catalogue, after the peak was read.
        let catalog: Catalog? = try Normalizer(configuration: configuration, logger: benchLogger)
            .normalize(RecordedProviderSource(directory: recording, limits: configuration.limits)).catalog

        // Floors: read + decode every recorded response, encode every page, gzip those bytes.
        let decodeStart = clock.now
        let decoder = JSONDecoder()
        var records = 0
        for file in try jsonFiles(under: recording) {
            let data = try Data(contentsOf: file)
            records += try decoder.decode(ProviderCollection<ProviderGame>.self, from: data).items?.count ?? 0
        }
        let decode = nanoseconds(clock.now - decodeStart)
        let encoder = CatalogCoding.encoder()
        let encodeStart = clock.now
        let encoded = try catalog!.editions.flatMap(\.pages).map { try encoder.encode($0) }
        let encode = nanoseconds(clock.now - encodeStart)
        let gzipStart = clock.now
        let packed = try encoded.map { try Gzip.compress($0) }
        let gzip = nanoseconds(clock.now - gzipStart)
        // Creating the files is part of any snapshot: one open/write/close per file, one thread,
        // into per-category directories made beforehand. On this machine's disk file creation
        // varies several-fold from run to run, which is why it is measured here, in the same run.
        let writeDirectory = work.appendingPathComponent("write-floor-\(games)")
        let allPages = catalog!.editions.flatMap(\.pages)
        let pagesByCategory = Dictionary(grouping: allPages.indices, by: { allPages[$0].categoryId })
        var writePaths: [String] = Array(repeating: "", count: packed.count)
        for (number, (_, indices)) in pagesByCategory.sorted(by: { $0.key < $1.key }).enumerated() {
            let directory = writeDirectory.appendingPathComponent("c\(number)", isDirectory: true)
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            for index in indices { writePaths[index] = directory.path + "/\(index).json.gz" }
        }
        let writeStart = clock.now
        for (index, data) in packed.enumerated() {
            let descriptor = open(writePaths[index], O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
            precondition(descriptor >= 0, "cannot create \(writePaths[index])")
            _ = data.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            close(descriptor)
        }
        let writeFiles = nanoseconds(clock.now - writeStart)
        try? FileManager.default.removeItem(at: writeDirectory)
        let floor = decode + encode + gzip + writeFiles
        let median = Samples(values: pipeline).median
        pipelineMedians[games] = median
        results.append(
            Result(
                operation: "normalize + snapshot (incl. validation)",
                size:
                    "\(games) games, \(records) records, \(manifest!.files.count) files, peak RSS \(peakKB / 1024) MiB",
                medianNanoseconds: median, p99Nanoseconds: pipeline.max()!,
                floor:
                    "decode \(format(decode)) + encode \(format(encode)) + gzip \(format(gzip)) + create files \(format(writeFiles))",
                floorMedianNanoseconds: floor))

        // The validator against sha256 + gunzip + decode of every file.
        let out = work.appendingPathComponent("out-\(games)-0")
        let validateStart = clock.now
        let report = SnapshotValidator(limits: configuration.snapshotLimits).validate(directory: out)
        let validate = nanoseconds(clock.now - validateStart)
        precondition(report.isValid, "the benchmark's snapshot does not validate: \(report.problems.prefix(3))")
        let snapshotDecoder = CatalogCoding.decoder()
        let floorStart = clock.now
        for entry in manifest!.files {
            let data = try Data(contentsOf: out.appendingPathComponent(entry.path))
            _ = FileNaming.hexSHA256(data)
            let json = try Gzip.decompress(data, limit: 64 << 20)
            switch entry.kind {
            case .categories: _ = try snapshotDecoder.decode(Snapshot<CategoryList>.self, from: json)
            case .gamesPage: _ = try snapshotDecoder.decode(Snapshot<GamesPage>.self, from: json)
            }
        }
        let validateFloor = nanoseconds(clock.now - floorStart)
        results.append(
            Result(
                operation: "validate", size: "\(games) games, \(manifest!.files.count) files",
                medianNanoseconds: validate,
                p99Nanoseconds: validate, floor: "sha256 + gunzip + decode every file",
                floorMedianNanoseconds: validateFloor))
        stagePeaks[games] = stageMemory(games: games, recording: recording, work: work)
        for (stage, mebibytes) in stagePeaks[games] ?? [] {
            let peak = Double(mebibytes)
            results.append(
                Result(
                    operation: "peak memory, one catalog process per stage", size: "\(games) games, \(stage)",
                    medianNanoseconds: peak, p99Nanoseconds: peak, floor: "1 MiB", floorMedianNanoseconds: 1,
                    unit: "MiB"))
        }
        try? FileManager.default.removeItem(at: recording)
        try? FileManager.default.removeItem(at: out)
    }
    if let small = pipelineMedians[10_000], let large = pipelineMedians[100_000] {
        print(String(format: "pipeline growth from 10k to 100k games: ×%.1f (linear would be ×10)", large / small))
    }
    if let small = stagePeaks[10_000], let large = stagePeaks[100_000], small.count == large.count {
        let growth = zip(small, large).map {
            "\($0.stage) ×" + String(format: "%.2f", Double($1.mebibytes) / Double($0.mebibytes))
        }
        let worst = large.map(\.mebibytes).max() ?? 0
        print(
            "stage peak memory growth from 10k to 100k games: \(growth.joined(separator: ", ")) (goal ≤ ×2); largest at 100k \(worst) MiB (goal ≤ 250)"
        )
    }

    // The XML reader on a 10,000-game feed against xmllint --stream --noout.
    if let reader = try xmlReaderBenchmark(work: work) { results.append(reader) }
    results += try feedSourceScaling(work: work)
    return results
}

/// An XML feed ten times larger in both categories and games against ten times the smaller one
/// (linear is a ratio of 1), twice: every page of every edition from the source alone
/// (`XMLFeedSource`), and the whole of `catalog snapshot --source` on it (normalize every edition,
/// write every page gzipped to a fresh directory), which is what a release engineer waits for.
///
/// The floor is ten runs on the smaller feed back to back, its samples interleaved with the larger
/// feed's: one read of the small feed took 98–164 ms from run to run on this shared machine, which
/// moved the ratio more than anything the reader does.
///
/// `smallGames` sets the smaller feed (a tenth as many categories). At the default 4,000 the small
/// feed's games fit the L3 cache and the large one's do not: see ``feedSourceScalingPastTheCache(work:)``.
func feedSourceScaling(work: URL, smallGames: Int = 4_000, snapshots: Bool = true) throws -> [Result] {
    try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
    let configuration = PipelineConfiguration.everyPage
    func feed(games: Int) throws -> URL {
        let feed = work.appendingPathComponent("feed-\(games / 10)x\(games).xml")
        try makeFeed(games: games, categories: games / 10).write(to: feed)
        return feed
    }
    func everyPage(_ feed: URL) throws {
        let source = try XMLFeedSource(file: feed, limits: configuration.limits)
        for edition in try source.editions() {
            for category in edition.categories {
                for page in category.pages { _ = try source.page(page) }
            }
        }
    }
    var runs = 0
    func snapshot(_ feed: URL) throws {
        runs += 1
        let out = work.appendingPathComponent("xml-out-\(runs)")
        defer { try? FileManager.default.removeItem(at: out) }
        _ = try writeSnapshot(of: XMLFeedSource(file: feed, limits: configuration.limits), configuration, to: out)
    }
    let smallFeed = try feed(games: smallGames)
    let largeFeed = try feed(games: smallGames * 10)
    defer {
        try? FileManager.default.removeItem(at: smallFeed)
        try? FileManager.default.removeItem(at: largeFeed)
    }
    let size = "\(smallGames) categories × \(smallGames * 10) games"
    let floor = "10 × (\(smallGames / 10) categories × \(smallGames) games)"
    let (small, large) = try measurePair(samples: 3, warmup: 1) {
        for _ in 0..<10 { try everyPage(smallFeed) }
    } operation: {
        try everyPage(largeFeed)
    }
    var results = [
        Result(
            operation: "XML feed source → every page of every edition", size: size, medianNanoseconds: large.median,
            p99Nanoseconds: large.median, floor: floor, floorMedianNanoseconds: small.median)
    ]
    guard snapshots else { return results }
    let (smallSnapshots, largeSnapshot) = try measurePair(samples: 3, warmup: 1) {
        for _ in 0..<10 { try snapshot(smallFeed) }
    } operation: {
        try snapshot(largeFeed)
    }
    results.append(
        Result(
            operation: "XML feed → snapshot (normalize + write, every page)", size: size,
            medianNanoseconds: largeSnapshot.median, p99Nanoseconds: largeSnapshot.median, floor: floor,
            floorMedianNanoseconds: smallSnapshots.median))
    return results
}

/// The source row from 30,000 to 300,000 games, both past this machine's 32 MiB L3 (a parsed game is
/// a dozen allocations, its fields, strings and memberships, which outgrow the cache between 20,000 and
/// 30,000 games): growth, told apart from a step where the cache runs out. About 40 s.
func feedSourceScalingPastTheCache(work: URL) throws -> [Result] {
    try feedSourceScaling(work: work, smallGames: 30_000, snapshots: false)
}

extension PipelineConfiguration {
    /// The defaults, but every page of every category, and limits for far more files than an app
    /// bundles and feeds up to 512 MiB: the whole catalogue goes through.
    static var everyPage: PipelineConfiguration {
        var configuration = PipelineConfiguration.default
        configuration.maxPagesPerCategory = 10_000
        configuration.snapshotLimits.maxFileCount = 200_000
        configuration.snapshotLimits.maxManifestBytes = 64 << 20
        configuration.limits.maxFeedBytes = 512 << 20
        configuration.limits.maxRecordsPerFile = 1_000_000
        return configuration
    }
}

/// `catalog snapshot --source` in process: normalizes `source` and streams it into `out`.
func writeSnapshot(
    of source: some CatalogSource, _ configuration: PipelineConfiguration, to out: URL
) throws
    -> Manifest
{
    var stream = try SnapshotWriter(limits: configuration.snapshotLimits, logger: benchLogger).stream(to: out)
    _ = try Normalizer(configuration: configuration, logger: benchLogger).normalize(source, into: &stream)
    return try stream.publish()
}

/// Peak memory and wall time of each pipeline stage as the release engineer runs it: the `catalog`
/// CLI (`CATALOG`, set by `make bench`) under `/usr/bin/time -v`, one process per stage, every page.
/// Returns each stage's peak in MiB, or `[]` when it could not run.
@discardableResult
func stageMemory(games: Int, recording: URL, work: URL) -> [(stage: String, mebibytes: Int)] {
    let time = "/usr/bin/time"
    guard let catalog = ProcessInfo.processInfo.environment["CATALOG"],
        FileManager.default.isExecutableFile(atPath: catalog),
        FileManager.default.isExecutableFile(atPath: time)
    else {
        print(
            "per-stage peak memory skipped: needs /usr/bin/time (Debian: apt-get install time) and CATALOG=<path to a release catalog>"
        )
        return []
    }
    let config = work.appendingPathComponent("stage-config-\(games).json")
    let normalized = work.appendingPathComponent("stage-normalized-\(games).jsonl")
    let out = work.appendingPathComponent("stage-out-\(games)")
    let configuration =
        #"{"defaultEdition": "en-iPhone", "editions": ["en-iPhone"], "maxPagesPerCategory": 10000, "pageSize": 10, "#
        + #""snapshotLimits": {"maxFileCount": 200000, "maxManifestBytes": 67108864}}"#
    guard (try? Data(configuration.utf8).write(to: config)) != nil else { return [] }
    var peaks: [(stage: String, mebibytes: Int)] = []
    let stages: [(String, [String])] = [
        (
            "normalize",
            ["normalize", "--quiet", "--source", recording.path, "--config", config.path, "--output", normalized.path]
        ),
        (
            "snapshot",
            ["snapshot", "--quiet", "--normalized", normalized.path, "--config", config.path, "--out", out.path]
        ),
        ("validate", ["validate", "--quiet", "--config", config.path, out.path]),
    ]
    var line = "\(games) games, every page, one process per stage (/usr/bin/time -v):"
    for (name, arguments) in stages {
        let process = Process()
        let errors = Pipe()
        process.executableURL = URL(fileURLWithPath: time)
        process.arguments = ["-v", catalog] + arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = errors
        guard (try? process.run()) != nil else { return [] }
        let report = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let field = { (label: String) in
            report.split(separator: "\n").first { $0.contains(label) }.map {
                String($0.split(separator: ": ").last ?? "")
            }
        }
        guard process.terminationStatus == 0, let peak = field("Maximum resident set size").flatMap({ Int($0) }) else {
            print("\(name) failed under /usr/bin/time: \(report.suffix(400))")
            return []
        }
        peaks.append((name, peak / 1024))
        line += " \(name) \(field("Elapsed (wall clock)") ?? "?") wall, peak \(peak / 1024) MiB;"
    }
    print(line)
    try? FileManager.default.removeItem(at: out)
    try? FileManager.default.removeItem(at: normalized)
    return peaks
}

/// The high-water mark of this process's resident memory, in KiB.
func peakResidentKilobytes() -> Int {
    var usage = rusage()
    #if canImport(Darwin)
    getrusage(RUSAGE_SELF, &usage)
    #else
    getrusage(RUSAGE_SELF.rawValue, &usage)
    #endif
    #if canImport(Darwin)
    return Int(usage.ru_maxrss) / 1024
    #else
    return Int(usage.ru_maxrss)
    #endif
}

private func jsonFiles(under directory: URL) throws -> [URL] {
    var files: [URL] = []
    let enumerator = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: nil)
    while let url = enumerator?.nextObject() as? URL {
        if url.pathExtension == "json", url.lastPathComponent != "recording.json" { files.append(url) }
    }
    return files
}

/// A feed in the documented XML format: `categories` categories, `games` games in 1–3 each.
func makeFeed(games: Int, categories: Int = 20) -> Data {
    var xml = #"<?xml version="1.0" encoding="UTF-8"?>"# + "\n"
    xml += #"<feed provider="bench" generated="2026-11-20T10:00:00Z" version="1">"# + "\n<categories>\n"
    for index in 1...categories {
        xml +=
            #"<category id="CAT\#(index)" position="\#(index)"><name lang="en">Category \#(index)</name><name lang="fr">Catégorie \#(index)</name></category>"#
            + "\n"
    }
    xml += "</categories>\n<games>\n"
    for index in 0..<games {
        let id = 10_000 + index
        xml +=
            #"<game id="\#(id)" slug="game-\#(id)" isNew="\#(index % 10 == 0)" funMode="true" anonymousFunMode="\#(index % 2 == 0)">"#
        xml += "<name>Golden Reels \(id)</name><vendor id=\"\(200 + index % 6)\">Vendor \(index % 6)</vendor>"
        xml += "<description><![CDATA[Spin the <b>Golden Reels \(id)</b> &amp; chase the bonus.]]></description>"
        xml +=
            "<thumbnail>//static.example-cdn.com/c/\(id).jpg</thumbnail><background>//static.example-cdn.com/b/\(id).jpg</background>"
        xml += "<launchUrl>https://launch.example.com/Loader/Start/\(id)/game-\(id)</launchUrl>"
        xml += "<platforms><platform>iPhone</platform><platform>Android</platform></platforms><categories>"
        for category in Set([index % categories, (index * 7) % categories, (index * 13) % categories]).sorted() {
            xml += #"<category ref="CAT\#(category + 1)" position="\#(index + 1)"/>"#
        }
        xml += "</categories><popularity>\(Double(index % 1000) / 10)</popularity><rtp>96.\(index % 100)</rtp>"
        xml += "<tags><tag>Free Spins</tag></tags><restrictedTerritories>AF AD CA-ON</restrictedTerritories></game>\n"
    }
    xml += "</games>\n</feed>\n"
    return Data(xml.utf8)
}
