@_spi(CatalogTools) import CasinoCatalog
@_spi(CatalogTools) import CatalogPipeline
import Foundation
@_spi(CatalogTools) import Gzip

/// The validator on a real snapshot directory with one fuzzed file: a list of problems, never a
/// trap. `FUZZ_SNAPSHOT` names the seed directory (`make fuzz` passes a fresh `catalog snapshot`
/// of data/); it is copied once into a temporary working directory.
///
/// The input's first byte picks the file (the manifest or one listed file); if the second byte is
/// odd, the rest is gzipped and the manifest's sizes and SHA-256 for that file are set to match, so
/// the checks reach the JSON and the schema's rules instead of stopping at the size, digest or gzip
/// checks.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzValidator(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let data = Data(bytes: start, count: count)
    guard data.count >= 2 else { return 0 }
    let fixture = Fixture.shared
    let index = Int(data[0]) % (fixture.manifest.files.count + 1)
    let body = data.dropFirst(2)
    if index == fixture.manifest.files.count {
        fixture.write(Data(body), to: Manifest.fileName)
    } else {
        let entry = fixture.manifest.files[index]
        if data[1] & 1 == 1, let packed = try? Gzip.compress(Data(body), level: Gzip.fastLevel) {
            var manifest = fixture.manifest
            manifest.files[index].compressedBytes = packed.count
            manifest.files[index].uncompressedBytes = body.count
            manifest.files[index].sha256 = FileNaming.hexSHA256(packed)
            fixture.write(packed, to: entry.path)
            fixture.write((try? CatalogCoding.encoder().encode(manifest)) ?? Data(), to: Manifest.fileName)
        } else {
            fixture.write(Data(body), to: entry.path)
        }
    }
    _ = SnapshotValidator().validate(directory: fixture.directory)
    fixture.restore(Manifest.fileName)
    if index < fixture.manifest.files.count { fixture.restore(fixture.manifest.files[index].path) }
    return 0
}

/// The working copy of the seed snapshot, and its original files to put back after each input.
private final class Fixture: Sendable {
    static let shared = Fixture()

    let directory: URL
    let manifest: Manifest
    let originals: [String: Data]

    init() {
        guard let seed = ProcessInfo.processInfo.environment["FUZZ_SNAPSHOT"] else {
            fatalError("set FUZZ_SNAPSHOT to a valid snapshot directory (make fuzz does)")
        }
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("fuzz-validator-\(getpid())")
        try? FileManager.default.removeItem(at: directory)
        do {
            try FileManager.default.copyItem(at: URL(fileURLWithPath: seed), to: directory)
            manifest = try SnapshotReader(directory: directory).manifest()
        } catch {
            fatalError("FUZZ_SNAPSHOT=\(seed) is not a valid snapshot directory: \(error)")
        }
        var originals = [
            Manifest.fileName: (try? Data(contentsOf: directory.appendingPathComponent(Manifest.fileName))) ?? Data()
        ]
        for entry in manifest.files {
            originals[entry.path] = try? Data(contentsOf: directory.appendingPathComponent(entry.path))
        }
        self.originals = originals
    }

    func write(_ data: Data, to path: String) {
        try? data.write(to: directory.appendingPathComponent(path))
    }

    func restore(_ path: String) {
        write(originals[path] ?? Data(), to: path)
    }
}
