// cache-bench: every hot path, timed against its floor in the same run. `make bench` builds it in
// release mode; arguments: an output .json path, and optionally the sections to run
// (`runtime`, `pipeline`, `images`, `day`; all by default; `memory` runs only the runtime's memory
// hit rows, `sync` only the synchronize rows, `disk-index` only the disk index rows, `first-frame` only the whole-lobby and manifest-size rows, `xml` only the XML feed rows, `xml-reader` only the reader against xmllint, `xml-shapes`
// the reader's 10×-larger-feed rows, `xml-scale` the XML source and snapshot rows, `xml-scale-cache`
// the source row past the L3 cache).

@_spi(CatalogTools) import CasinoCatalog
import Foundation

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.count == 4, arguments[0] == synchronizeMemoryChild {
    let growth = await synchronizeMemory(
        of: URL(fileURLWithPath: arguments[1]), warm: URL(fileURLWithPath: arguments[2]),
        synchronizing: arguments[3] == "synchronize")
    print(growth.map(String.init) ?? "")
    exit(growth == nil ? 1 : 0)
}
let outputPath = arguments.first { $0.hasSuffix(".json") } ?? "benchmarks.json"
let sections = Set(arguments.filter { !$0.hasSuffix(".json") })
func wants(_ section: String) -> Bool { sections.isEmpty || sections.contains(section) }

// Files go to memory (/dev/shm) when there is one, unless CACHE_BENCH_DIR says where: on this
// machine's ext4 (mounted with `discard`) creating 2,000 small files took 0.2 s or 1.5 s depending on
// what was deleted before, which drowned what the benchmarks measure. Override to time a real disk.
let benchRoot: URL = {
    if let directory = ProcessInfo.processInfo.environment["CACHE_BENCH_DIR"] { return URL(fileURLWithPath: directory) }
    if FileManager.default.isWritableFile(atPath: "/dev/shm") { return URL(fileURLWithPath: "/dev/shm") }
    return FileManager.default.temporaryDirectory
}()
let work = benchRoot.appendingPathComponent("cache-bench-\(UUID().uuidString)")
print("working in \(benchRoot.path)")
print(keepFreedMemory())
try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: work) }

var results: [Result] = []
if wants("runtime") {
    results += try await runtimeBenchmarks(work: work.appendingPathComponent("runtime"))
    printTable(results)
} else if sections.contains("memory") {
    results += try await runtimeBenchmarks(work: work.appendingPathComponent("runtime"), memoryOnly: true)
    printTable(results)
}
if sections.contains("first-frame") {
    results += try firstFrameBenchmarks(work: work.appendingPathComponent("first-frame"))
    printTable(results)
}
if wants("pipeline") {
    let pipeline = try pipelineBenchmarks(work: work.appendingPathComponent("pipeline"))
    print("")
    printTable(pipeline)
    results += pipeline
}
if sections.contains("xml-scale") { printTable(try feedSourceScaling(work: work)) }
if sections.contains("xml-shapes") { printTable(try xmlShapeScaling(work: work.appendingPathComponent("xml"))) }
if sections.contains("xml-scale-cache") { printTable(try feedSourceScalingPastTheCache(work: work)) }
if sections.contains("xml-reader"), let reader = try xmlReaderBenchmark(work: work.appendingPathComponent("xml")) {
    printTable([reader])
}
if sections.contains("xml") {
    let xml =
        [try xmlReaderBenchmark(work: work.appendingPathComponent("xml"))].compactMap { $0 }
        + (try xmlShapeScaling(work: work.appendingPathComponent("xml"))) + (try feedSourceScaling(work: work))
        + (try feedSourceScalingPastTheCache(work: work))
    print("")
    printTable(xml)
    results += xml
}
if wants("images") {
    let images = try imageBenchmarks(work: work.appendingPathComponent("images"))
    print("")
    printTable(images)
    results += images
}
if sections.contains("disk-index") {
    printTable(try await diskIndexBenchmarks(work: work.appendingPathComponent("disk-index")))
}
if sections.contains("sync") {
    // The runtime section's games: the SHA-256 floor is of the pages' JSON, so it moves with their size.
    let catalog = try sampleCatalog(games: 2000, categories: 20, in: work.appendingPathComponent("sync-catalog"))
    printTable(
        try await synchronizeBenchmarks(
            work: work.appendingPathComponent("sync"), items: catalog.editions[0].pages.flatMap(\.items)))
}
if sections.contains("profile-hit") { try await profileMemoryHit() }
if sections.contains("profile-disk") { try await profileDiskHit(work: work) }
if sections.contains("profile-cold") { try profileColdStart(work: work) }
if sections.contains("profile-pipeline") { try profilePipeline(work: work) }
if sections.contains("profile-xml") { try profileXMLFeed(work: work) }
if sections.contains("profile-xml-source") { try profileXMLFeedSource(work: work) }
if sections.contains("profile-store") { try await profileStore(work: work) }
if sections.contains("profile-miss") { try await profileMiss(work: work) }
if sections.contains("profile-check") { try profileCheck(work: work) }
if sections.contains("profile-sync") { try await profileSynchronize(work: work) }
if sections.contains("profile-inspection") { try await profileInspection(work: work) }
if wants("day") {
    print("")
    results += try await simulatedDay()
}

let encoder = JSONEncoder()
encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
try encoder.encode(results).write(to: URL(fileURLWithPath: outputPath))
print("wrote \(outputPath)")
