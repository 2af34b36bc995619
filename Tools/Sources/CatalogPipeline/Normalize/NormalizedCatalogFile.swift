public import CasinoCatalog
public import Foundation

/// The normalized catalogue as one JSON file: what `catalog normalize` writes and
/// `catalog snapshot --normalized` reads, so `make` can skip steps whose input did not change.
public enum NormalizedCatalogFile {
    /// Writes `catalog` to `url` atomically (temporary file + rename), keys sorted.
    ///
    /// - Throws: ``PipelineError`` naming the file; the previous file is then untouched.
    public static func write(_ catalog: Catalog, to url: URL) throws(PipelineError) {
        let data: Data
        do {
            data = try CatalogCoding.encoder().encode(catalog)
        } catch {
            throw PipelineError(.invalidContent, "cannot encode the catalogue: \(error)", file: url.relativePath)
        }
        try FileOutput.writeAtomically(data, to: url)
    }

    /// Reads a normalized catalogue.
    ///
    /// - Throws: ``PipelineError`` when the file is missing, over `limit` bytes or not a catalogue.
    public static func read(from url: URL, limit: Int = 1 << 30) throws(PipelineError) -> Catalog {
        let data = try FileInput.read(url, limit: limit, what: "normalized catalogue")
        return try JSONInput.decode(Catalog.self, from: data, file: url.relativePath)
    }
}
