import Foundation
@_spi(CatalogTools) import XMLGameFeed

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The XML feed reader on a 10,000-game feed against `xmllint --stream --noout` on the same file,
/// their samples interleaved; `nil` (with a note) when xmllint is not installed.
func xmlReaderBenchmark(work: URL) throws -> Result? {
    try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
    let feed = work.appendingPathComponent("feed-10000.xml")
    try makeFeed(games: 10_000).write(to: feed)
    defer { try? FileManager.default.removeItem(at: feed) }
    let size = (try FileManager.default.attributesOfItem(atPath: feed.path)[.size] as? NSNumber)?.intValue ?? 0
    guard
        let xmllint = ["/usr/bin/xmllint", "/usr/local/bin/xmllint"].first(where: FileManager.default.isExecutableFile)
    else {
        let reader = try measure(samples: 7, warmup: 1) { _ = try XMLFeedReader.read(contentsOf: feed) }
        print(
            "xmllint not found (Debian: apt-get install libxml2-utils): XML floor skipped; reader median \(format(reader.median))"
        )
        return nil
    }
    let (tool, reader) = try measurePair(samples: 9, warmup: 1) {
        try run(xmllint, ["--stream", "--noout", feed.path])
    } operation: {
        _ = try XMLFeedReader.read(contentsOf: feed)
    }
    return Result(
        operation: "XML feed → games (libxml2 SAX2 push parser)", size: "10,000 games, \(size / 1024) KiB",
        medianNanoseconds: reader.median, p99Nanoseconds: reader.p99, floor: "xmllint --stream --noout",
        floorMedianNanoseconds: tool.median)
}

/// Runs `executable` and waits for it with `waitpid`. Not `Process`: its `waitUntilExit` polls the
/// run loop every 50 ms, which made a 31 ms xmllint read take 51 ms, the floor half again too slow.
/// Throws when it cannot start or does not exit with status 0.
func run(_ executable: String, _ arguments: [String]) throws {
    let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
    defer { for pointer in argv { free(pointer) } }
    var pid: pid_t = 0
    let spawned = posix_spawn(&pid, executable, nil, nil, argv, environ)
    guard spawned == 0 else { throw POSIXError(POSIXErrorCode(rawValue: spawned) ?? .EIO) }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) == -1 {
        guard errno == EINTR else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    }
    guard status == 0 else { throw ExitStatus(executable: executable, status: status) }
}

/// A process that did not exit with status 0 (`status` as `waitpid` reports it).
struct ExitStatus: Error {
    var executable: String
    var status: Int32
}

/// The reader on feeds of one shape ten times larger against ten times the smaller feed: linear
/// is a ratio of 1, and the goal is at most 1.1. Each shape stresses one dimension a hostile feed can
/// grow in: categories, games, text length, nesting depth, attributes (up to the default
/// ``XMLFeedReader/Limits/maxAttributes``; past it a tag is refused before libxml2 parses it).
///
/// The floor is ten reads of the smaller feed back to back, its samples interleaved with the larger
/// feed's, so a slow stretch of this shared machine hits both alike.
func xmlShapeScaling(work: URL) throws -> [Result] {
    try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
    var limits = XMLFeedReader.Limits.default
    limits.maxDepth = 250  // libxml2 itself refuses more than 256 levels without XML_PARSE_HUGE
    limits.maxTextBytes = 1 << 20
    limits.maxBytes = 512 << 20
    func time(_ name: String, small: Data, large: Data) throws -> (small: Double, large: Double) {
        let smallFeed = work.appendingPathComponent("shape-\(name)-small.xml")
        let largeFeed = work.appendingPathComponent("shape-\(name)-large.xml")
        try small.write(to: smallFeed)
        try large.write(to: largeFeed)
        defer {
            try? FileManager.default.removeItem(at: smallFeed)
            try? FileManager.default.removeItem(at: largeFeed)
        }
        let (tenSmall, oneLarge) = try measurePair(samples: 5, warmup: 1) {
            for _ in 0..<10 { _ = try XMLFeedReader.read(contentsOf: smallFeed, limits: limits) }
        } operation: {
            _ = try XMLFeedReader.read(contentsOf: largeFeed, limits: limits)
        }
        return (tenSmall.median, oneLarge.median)
    }
    let shapes: [(name: String, size: String, small: Data, large: Data)] = [
        (
            "categories", "20,000 categories × 20,000 games",
            makeFeed(games: 2_000, categories: 2_000), makeFeed(games: 20_000, categories: 20_000)
        ),
        ("games", "100,000 games", makeFeed(games: 10_000), makeFeed(games: 100_000)),
        (
            "text", "200 games × 500 KB descriptions",
            makeShapedFeed(games: 200, textBytes: 50_000), makeShapedFeed(games: 200, textBytes: 500_000)
        ),
        (
            "text-skipped", "200 games × 500 KB unknown text",
            makeShapedFeed(games: 200, unknownTextBytes: 50_000), makeShapedFeed(games: 200, unknownTextBytes: 500_000)
        ),
        (
            "depth", "200 games × 240 levels",
            makeShapedFeed(games: 200, depth: 24), makeShapedFeed(games: 200, depth: 240)
        ),
        (
            "attributes", "20,000 games × 60 attributes",
            makeShapedFeed(games: 2_000, attributes: 60), makeShapedFeed(games: 20_000, attributes: 60)
        ),
        (
            "attributes per tag", "5,000 games × 60 attributes",
            makeShapedFeed(games: 5_000, attributes: 6), makeShapedFeed(games: 5_000, attributes: 60)
        ),
    ]
    var results: [Result] = []
    for shape in shapes {
        let (small, large) = try time(shape.name, small: shape.small, large: shape.large)
        results.append(
            Result(
                operation: "XML reader, 10× larger feed: \(shape.name)", size: shape.size, medianNanoseconds: large,
                p99Nanoseconds: large, floor: "10 × the feed a tenth the size", floorMedianNanoseconds: small))
    }
    return results
}

/// A feed of `games` minimal games, each with a description of `textBytes` bytes, an unknown
/// element of `unknownTextBytes` bytes of text, an unknown element nested `depth` levels below
/// `<game>` and `attributes` extra attributes on `<game>` (whichever are non-zero).
func makeShapedFeed(
    games: Int, textBytes: Int = 0, unknownTextBytes: Int = 0, depth: Int = 0, attributes: Int = 0
)
    -> Data
{
    var xml = #"<?xml version="1.0" encoding="UTF-8"?>"# + "\n"
    xml += #"<feed provider="bench"><categories><category id="CAT1"><name>One</name></category></categories><games>"#
    xml += "\n"
    let text = String(repeating: "Spin the reels &amp; win. ", count: max(textBytes / 26, 0))
    let unknown = String(repeating: "x", count: unknownTextBytes)
    let extra = (0..<attributes).map { " a\($0)=\"v\($0)\"" }.joined()
    for index in 0..<games {
        xml += "<game id=\"\(index)\"\(extra)><name>Game \(index)</name>"
        if textBytes > 0 { xml += "<description>\(text)</description>" }
        if unknownTextBytes > 0 { xml += "<notes>\(unknown)</notes>" }
        if depth > 0 {
            xml += String(repeating: "<x>", count: depth) + "deep" + String(repeating: "</x>", count: depth)
        }
        xml += #"<categories><category ref="CAT1"/></categories></game>"# + "\n"
    }
    xml += "</games></feed>\n"
    return Data(xml.utf8)
}
