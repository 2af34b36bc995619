@_spi(CatalogTools) import CasinoCatalog
@_spi(CatalogTools) import CatalogPipeline
import Foundation

/// Image sniffing and the manifest's `images` section, as the pipeline and the app's bundled tier
/// apply them: any bytes get a type or a refusal, any manifest its violations, and an image the
/// reader accepts is exactly what its entry says; never a trap.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzImages(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let data = Data(bytes: start, count: count)
    if case .success(let type) = ImageSniffer.sniff(data) {
        precondition(ImageMediaType(fileExtension: type.fileExtension) == type, "a type does not survive its extension")
        // An accepted image read back through the reader, from a one-image snapshot directory.
        let digest = FileNaming.hexSHA256(data)
        let entry = Manifest.Image(
            url: "https://static.example.com/a.img", path: Manifest.Image.path(sha256: digest, mediaType: type),
            bytes: data.count, sha256: digest, mediaType: type)
        if let read = try? SnapshotReader(directory: directory(holding: data, at: entry.path)).image(entry) {
            precondition(read == data, "the reader answered other bytes than the file's")
        }
    }
    if let manifest = try? CatalogCoding.decoder().decode(Manifest.self, from: data) {
        for limits in [SnapshotLimits.default, tinyLimits] {
            _ = manifest.violations(limits: limits)
        }
        _ = manifest.imageFiles
    }
    return 0
}

/// A scratch snapshot directory holding `data` at `path`, reused across runs.
private func directory(holding data: Data, at path: String) -> URL {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("fuzz-images-\(getpid())")
    try? FileManager.default.removeItem(at: root)
    let file = root.appendingPathComponent(path)
    try? FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
    try? data.write(to: file)
    return root
}

private let tinyLimits: SnapshotLimits = {
    var limits = SnapshotLimits()
    limits.maxImageCount = 1
    limits.maxImageBytes = 1
    limits.maxImageTotalBytes = 1
    return limits
}()
