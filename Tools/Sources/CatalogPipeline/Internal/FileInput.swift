public import Foundation

/// Reads input files with a size cap, turning every failure into a ``PipelineError`` that
/// names the file. SPI: the CLI reads its own inputs (a cache report) through it too.
@_spi(CatalogTools) public enum FileInput {
    /// Reads `url` whole, refusing files over `limit` bytes (and anything but a regular file)
    /// before reading them.
    public static func read(_ url: URL, limit: Int, what: String) throws(PipelineError) -> Data {
        let path = url.relativePath
        let attributes = try regularFileAttributes(url, what: what)
        if let size = (attributes[.size] as? NSNumber)?.intValue, size > limit {
            throw PipelineError(
                .inputTooLarge,
                "\(what) is \(size) bytes, over the cap of \(limit) bytes; raise limits in the configuration if it is genuine",
                file: path)
        }
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw PipelineError(.io, "cannot read \(what): \(error.localizedDescription)", file: path)
        }
        guard data.count <= limit else {  // the file grew between stat and read
            throw PipelineError(.inputTooLarge, "\(what) is over the cap of \(limit) bytes", file: path)
        }
        return data
    }

    /// The attributes of the regular file at `url` (a symbolic link is not one).
    ///
    /// - Throws: ``PipelineError``: `.missingInput` when nothing is there, `.malformedInput` when
    ///   it is a directory, a link, a FIFO or a device.
    @discardableResult
    static func regularFileAttributes(_ url: URL, what: String) throws(PipelineError) -> [FileAttributeKey: Any] {
        let attributes: [FileAttributeKey: Any]
        do {
            attributes = try FileManager.default.attributesOfItem(atPath: url.path)
        } catch {
            throw PipelineError(.missingInput, "\(what) file not found", file: url.relativePath)
        }
        if let type = attributes[.type] as? FileAttributeType, type != .typeRegular {
            throw PipelineError(.malformedInput, "\(what) is not a regular file", file: url.relativePath)
        }
        return attributes
    }

    /// Whether a directory exists at `url`.
    static func isDirectory(_ url: URL) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) && isDirectory.boolValue
    }
}
