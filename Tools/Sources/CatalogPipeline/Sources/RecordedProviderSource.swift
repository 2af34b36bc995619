@_spi(CatalogTools) import CasinoCatalog
public import Foundation
@_spi(CatalogTools) import ProviderAPI

/// A directory of verbatim provider responses in the ``RecordingLayout``: the embedded default
/// data, or a recording of the live API made by ``HTTPFetcher`` (`catalog fetch`).
///
/// Only `recording.json` and the categories files are read up front; a games page is read when
/// the normalizer asks for it, each file capped at ``PipelineConfiguration/Limits/maxJSONFileBytes``.
public struct RecordedProviderSource: CatalogSource {
    /// Where the files are.
    public let layout: RecordingLayout
    /// The recording's metadata, when it has a `recording.json`.
    public let metadata: RecordingLayout.Metadata?
    private let limits: PipelineConfiguration.Limits

    /// Opens a recording.
    ///
    /// - Throws: ``PipelineError`` when the directory does not exist or `recording.json` is malformed.
    public init(directory: URL, limits: PipelineConfiguration.Limits = .default) throws(PipelineError) {
        guard FileInput.isDirectory(directory) else {
            throw PipelineError(
                .missingInput, "recorded provider directory not found",
                file: directory.relativePath)
        }
        self.layout = RecordingLayout(root: directory)
        self.limits = limits
        if FileManager.default.fileExists(atPath: layout.metadataFile.path) {
            let data = try FileInput.read(layout.metadataFile, limit: 1 << 20, what: "recording metadata")
            metadata = try JSONInput.decode(
                RecordingLayout.Metadata.self, from: data, file: layout.metadataFile.relativePath)
        } else {
            metadata = nil
        }
    }

    public var description: String { "recorded provider directory \(layout.root.relativePath)" }

    public var fetchedAt: Date? { metadata?.fetchedAt }

    public func editions() throws(PipelineError) -> [SourceEdition] {
        try recordedEditions().map { edition throws(PipelineError) in try sourceEdition(edition) }
    }

    public func page(_ reference: SourcePageReference) throws(PipelineError) -> SourcePage {
        let (envelope, items) = try readCollection(
            of: Lossy<ProviderGame>.self, at: URL(fileURLWithPath: reference.location), what: "games page")
        let entries = items.indices.map { index in
            SourceRecords.Entry(game: index, position: reference.offset + index, place: .item(index))
        }
        let records = SourceRecords(games: items, entries: entries)
        return SourcePage(
            location: reference.location, offset: reference.offset, total: envelope.total, records: records)
    }

    /// Reads one recorded response: a collection envelope with an `items` array, capped in bytes
    /// and in records.
    private func readCollection<Item>(
        of type: Item.Type, at url: URL, what: String
    ) throws(PipelineError) -> (envelope: ProviderCollection<Item>, items: [Item]) {
        let data = try FileInput.read(url, limit: limits.maxJSONFileBytes, what: what)
        let envelope = try JSONInput.decode(ProviderCollection<Item>.self, from: data, file: url.relativePath)
        guard let items = envelope.items else {
            throw PipelineError(
                .malformedInput, "the \(what) has no items array; record it again", file: url.relativePath)
        }
        guard items.count <= limits.maxRecordsPerFile else {
            throw PipelineError(
                .inputTooLarge, "\(items.count) records, over the cap of \(limits.maxRecordsPerFile)",
                file: url.relativePath)
        }
        return (envelope, items)
    }

    /// The editions listed in `recording.json`, else every subdirectory named like one.
    private func recordedEditions() throws(PipelineError) -> [Edition] {
        if let metadata { return metadata.editions.sorted() }
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: layout.root.path)
        } catch {
            throw PipelineError(
                .io, "cannot list the directory: \(error.localizedDescription)", file: layout.root.relativePath)
        }
        return names.compactMap { try? Edition(id: $0) }.sorted()
    }

    private func sourceEdition(_ edition: Edition) throws(PipelineError) -> SourceEdition {
        let file = layout.categoriesFile(for: edition)
        let (_, items) = try readCollection(of: Lossy<ProviderCategory>.self, at: file, what: "categories response")
        var categories: [SourceCategory] = []
        for (index, item) in items.enumerated() {
            var pages: [SourcePageReference] = []
            var pagesLocation = layout.root.appendingPathComponent(edition.id).appendingPathComponent("games")
                .relativePath
            if let id = item.value?.id?.text, !id.isEmpty {
                let directory = layout.gamesDirectory(for: edition, categoryId: id)
                pagesLocation = directory.relativePath
                pages = try pageReferences(in: directory)
            }
            categories.append(
                SourceCategory(
                    record: item, recordLocation: "items[\(index)]", pages: pages, pagesLocation: pagesLocation))
        }
        return SourceEdition(edition: edition, location: file.relativePath, categories: categories)
    }

    /// The `<offset>.json` files of a category directory, by ascending offset.
    private func pageReferences(in directory: URL) throws(PipelineError) -> [SourcePageReference] {
        guard FileInput.isDirectory(directory) else { return [] }
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        } catch {
            throw PipelineError(
                .io, "cannot list the directory: \(error.localizedDescription)", file: directory.relativePath)
        }
        return names.compactMap { name -> SourcePageReference? in
            guard name.hasSuffix(".json") else { return nil }
            let stem = String(name.dropLast(".json".count))
            guard let offset = Int(stem), offset >= 0, String(offset) == stem else { return nil }
            return SourcePageReference(location: directory.appendingPathComponent(name).relativePath, offset: offset)
        }.sorted { $0.offset < $1.offset }
    }
}
