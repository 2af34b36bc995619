@_spi(CatalogTools) import CasinoCatalog
@_spi(CatalogTools) import CatalogPipeline
import Foundation

/// The normalized catalogue reader (JSON Lines, line cap, checked order) on fuzzed bytes: a
/// catalogue or a `PipelineError`, never a trap.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzNormalized(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let file = Scratch.file
    // fopen/fwrite, not Data.write, which syncs every file on Linux (a few inputs a second).
    guard let stream = fopen(file.path, "wb") else { return 0 }
    let written = fwrite(start, 1, count, stream)
    fclose(stream)
    guard written == count else { return 0 }
    var collector = CatalogCollector()
    do {
        try NormalizedCatalogFile.read(from: file, into: &collector)
        precondition(collector.catalog != nil, "a file read to its end must give a catalogue")
    } catch {}
    return 0
}

/// One file per process, rewritten for each input.
private enum Scratch {
    static let file = FileManager.default.temporaryDirectory.appendingPathComponent("fuzz-normalized-\(getpid()).jsonl")
}
