@_spi(CatalogTools) import CasinoCache
@_spi(CatalogTools) import CasinoCatalog
import Foundation

/// What an app reads of a snapshot's index at launch: the input as an edition's table
/// (`index/en-iPhone.tsv`, under a valid `index.json`) and as `index.json`
/// itself. Hostile bytes are a refusal, never a trap; a table that reads keeps the manifest's rules,
/// lists only its edition, and is written back byte for byte.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzIndex(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let data = Data(bytes: start, count: count)
    let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("fuzz-index-\(getpid())-\(UUID().uuidString)", isDirectory: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let reader = SnapshotReader(directory: directory)

    // As an edition's table.
    let index = head
    let parts = directory.appendingPathComponent(SnapshotIndex.partsDirectory)
    guard (try? FileManager.default.createDirectory(at: parts, withIntermediateDirectories: true)) != nil,
        (try? data.write(to: directory.appendingPathComponent(SnapshotIndex.path(of: edition)))) != nil,
        (try? CanonicalJSON.encode(index).write(to: directory.appendingPathComponent(SnapshotIndex.fileName))) != nil
    else { return 0 }
    if let manifest = try? reader.manifest(of: edition, in: index) {
        precondition(manifest.violations(limits: .default).isEmpty, "a table that breaks the rules was read")
        precondition(manifest.files.allSatisfy { $0.edition == edition }, "a table listed another edition")
        let written = try? SnapshotIndex.files(for: manifest).first { $0.path == SnapshotIndex.path(of: edition) }
        precondition(written?.data == data, "a table does not round-trip")
    }
    let tier = BundledTier(configuration: .init(directory: directory))
    _ = tier.entry(for: .categories(edition))

    // As index.json.
    guard (try? data.write(to: directory.appendingPathComponent(SnapshotIndex.fileName))) != nil else { return 0 }
    if let read = try? reader.index() {
        precondition(read.violations(limits: .default).isEmpty, "an index that breaks the rules was read")
    }
    _ = BundledTier(configuration: .init(directory: directory)).entry(for: .categories(edition))
    return 0
}

private let edition = try! Edition(id: "en-iPhone")

/// A valid index.json naming one edition's table.
private let head = SnapshotIndex(
    head: Manifest(
        generator: .init(name: "catalog", version: "fuzz"), generatedAt: Date(timeIntervalSince1970: 1_795_000_000),
        source: "fuzz", contentHash: "sha256:" + String(repeating: "ab", count: 32), pageSize: 10,
        defaultEdition: edition, editions: [edition], files: []),
    imageCount: nil)
