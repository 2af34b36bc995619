@_spi(CatalogTools) import CasinoCatalog
import Foundation

extension SnapshotPreview {
    /// The page of `edition`: its facts (when generated, how old, sizes, what is withheld), then
    /// each category in lobby order with its first page's tiles.
    ///
    /// Self-contained and offline: thumbnails are `images/<sha256>.<ext>` beside the page (the
    /// manifest's own paths, each checked by the reader), a `Content-Security-Policy` allows nothing
    /// but those images, this page's own style and its one script (by their SHA-256), and every
    /// name, id and URL from the snapshot is escaped. The script, after `load`, records each
    /// thumbnail's `naturalWidth` in `data-natural-width` and writes
    /// `<output id="decoded" data-decoded="N" data-failed="M" data-tiles="T" data-images="I">`.
    public func html(of edition: EditionPreview) -> String {
        let tiles = edition.tiles
        let count = ThumbnailCounts(tiles)
        let withheld = tiles.count { $0.isWithheld }
        var body = [
            #"<p><a href="\#(Self.indexName)">All editions</a></p>"#,
            "<h1>\(e(edition.edition.id))\(edition.isDefault ? " <small>(default edition)</small>" : "")</h1>",
            "<p>The first screen a player sees on the first launch, offline: the categories in lobby order, each with its first bundled page.</p>",
            #"<dl class="facts">"#,
        ]
        body += generatedFacts()
        body += [
            "<dt>Territory</dt><dd>\(e(territoryText))</dd>",
            "<dt>Tiles</dt><dd>\(tiles.count) in \(edition.categories.count) categories; \(withheld) withheld</dd>",
            "<dt>Thumbnails</dt><dd>\(count.text)</dd>",
            "<dt>Edition files</dt><dd>\(edition.files) files, \(edition.compressedBytes) bytes gzip (\(edition.uncompressedBytes) bytes JSON)</dd>",
            "</dl>",
            #"<p><output id="decoded" data-tiles="\#(tiles.count)" data-images="\#(count.bundled)">"#
                + "thumbnails not checked (the page's script did not run)</output></p>",
        ]
        for (position, category) in edition.categories.enumerated() {
            body += section(category, position: position)
        }
        body.append("<script>\(Self.script)</script>")
        return page(title: "\(edition.edition.id): first screen offline", body: body, script: Self.script)
    }

    /// The index: the snapshot's facts and sizes, and a row per edition linking its page.
    public func indexHTML() -> String {
        let images = manifest.imageFiles
        var body = [
            "<h1>What ships: the first screen of each edition</h1>", #"<dl class="facts">"#,
        ]
        body += generatedFacts()
        body += [
            "<dt>Source</dt><dd>\(e(manifest.source))</dd>",
            "<dt>Generator</dt><dd>\(e(manifest.generator.name)) \(e(manifest.generator.version))</dd>",
            "<dt>Content</dt><dd><code>\(e(manifest.contentHash))</code></dd>",
            "<dt>Content files</dt><dd>\(manifest.files.count) files, \(manifest.files.reduce(0) { $0 + $1.compressedBytes }) bytes gzip</dd>",
            "<dt>Images</dt><dd>\(images.count) files, \(images.reduce(0) { $0 + $1.bytes }) bytes, for \(manifest.images?.count ?? 0) URLs</dd>",
            "<dt>Territory</dt><dd>\(e(territoryText))</dd>",
            "</dl>",
            "<table><thead><tr><th>edition</th><th>categories</th><th>tiles</th><th>withheld</th>"
                + "<th>thumbnails</th><th>files</th><th>bytes (gzip)</th></tr></thead><tbody>",
        ]
        for edition in editions {
            let tiles = edition.tiles
            body.append(
                #"<tr><td><a href="\#(e(Self.pageName(of: edition.edition)))">\#(e(edition.edition.id))</a>"#
                    + "\(edition.isDefault ? " (default)" : "")</td><td>\(edition.categories.count)</td>"
                    + "<td>\(tiles.count)</td><td>\(tiles.count { $0.isWithheld })</td>"
                    + "<td>\(ThumbnailCounts(tiles).text)</td><td>\(edition.files)</td><td>\(edition.compressedBytes)</td></tr>"
            )
        }
        body.append("</tbody></table>")
        return page(title: "Snapshot preview", body: body, script: nil)
    }

    // MARK: - Parts

    private func section(_ category: CategoryPreview, position: Int) -> [String] {
        let total = category.category.gamesTotal
        var lines = [
            #"<section class="category" id="category-\#(position)" data-category-id="\#(e(category.category.id))">"#,
            "<h2>\(e(category.category.name)) <small>\(e(category.category.id)) · first page: "
                + "\(category.tiles.count) of \(total) games</small></h2>",
        ]
        guard category.isFirstPageBundled else {
            lines += [
                #"<p class="empty">No page bundled: offline, the app has nothing to show here.</p>"#, "</section>",
            ]
            return lines
        }
        lines.append(#"<ol class="tiles">"#)
        for tile in category.tiles { lines.append(self.tile(tile)) }
        return lines + ["</ol>", "</section>"]
    }

    private func tile(_ tile: Tile) -> String {
        let game = tile.game
        let picture: String
        let state: String
        switch tile.thumbnail {
        case .bundled(let image):
            state = "bundled"
            picture = #"<img class="thumb" data-thumbnail src="\#(e(image.path))" alt="\#(e(game.name))">"#
        case .notBundled:
            state = "not-bundled"
            picture = placeholder("not-bundled", "not bundled", "loaded over the network: \(game.thumbnail)")
        case .missing(let image, let reason):
            state = "missing"
            picture = placeholder("missing", "thumbnail missing", "\(image.path): \(reason) (\(game.thumbnail))")
        case .tampered(let image, let reason):
            state = "tampered"
            picture = placeholder("tampered", "thumbnail tampered", "\(image.path): \(reason) (\(game.thumbnail))")
        }
        var badges: [String] = []
        if game.isNew { badges.append(#"<span class="badge new">New</span>"#) }
        if let vendor = game.vendor { badges.append(#"<span class="badge">\#(e(vendor.name))</span>"#) }
        for tag in game.tags.prefix(3) { badges.append(#"<span class="badge">\#(e(tag))</span>"#) }
        let codes = game.restrictedTerritories.joined(separator: ", ")
        if tile.isWithheld {
            badges.append(#"<span class="badge withheld">withheld (restricted in \#(e(codes)))</span>"#)
        } else if !codes.isEmpty {
            badges.append(#"<span class="badge">restricted in \#(e(codes))</span>"#)
        }
        return #"<li class="tile" data-game-id="\#(e(game.id))" data-thumbnail="\#(state)" "#
            + #"data-withheld="\#(tile.isWithheld)">\#(picture)<p class="name">\#(e(game.name))</p>"#
            + #"<p class="badges">\#(badges.joined())</p></li>"#
    }

    private func placeholder(_ kind: String, _ label: String, _ detail: String) -> String {
        #"<div class="thumb placeholder \#(kind)" role="img" aria-label="\#(label)" title="\#(e(detail))">\#(label)</div>"#
    }

    private func generatedFacts() -> [String] {
        let date = manifest.generatedAt.formatted(.iso8601)
        let age =
            self.age >= 0
            ? "\(DurationText.age(age)) before this preview"
            : "\(DurationText.age(-age)) after this preview: the clock that made it was ahead"
        return [#"<dt>Generated</dt><dd><time datetime="\#(e(date))">\#(e(date))</time>, \#(age)</dd>"#]
    }

    private var territoryText: String {
        guard let territory else {
            return
                "unknown, as on a first launch: every game restricted anywhere is withheld (the cache's default policy)"
        }
        return "\(territory): games restricted there (or in its country) are withheld"
    }

    private func page(title: String, body: [String], script: String?) -> String {
        HTMLText.document(title: title, body: body, style: Self.style, script: script)
    }

    private func e(_ text: String) -> String { HTMLText.escape(text) }

    /// After `load`: each thumbnail's `naturalWidth`, and how many decoded, in `#decoded`.
    static let script = """
        addEventListener("load", () => {
          const images = document.querySelectorAll("img[data-thumbnail]");
          let decoded = 0;
          for (const image of images) {
            image.dataset.naturalWidth = String(image.naturalWidth);
            if (image.complete && image.naturalWidth > 0) decoded += 1;
          }
          const output = document.getElementById("decoded");
          output.dataset.decoded = String(decoded);
          output.dataset.failed = String(images.length - decoded);
          output.textContent = decoded + " of " + images.length + " thumbnails decoded, "
            + (images.length - decoded) + " failed; " + output.dataset.tiles + " tiles";
        });
        """

    /// The preview's look: also the cache report's (`catalog inspect-cache --html`).
    @_spi(CatalogTools) public static let style = """
        body { font: 14px/1.4 system-ui, sans-serif; margin: 16px 24px; color: #1d1d1f; background: #fafafa; }
        dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: 2px 12px; }
        dt { font-weight: 600; } dd { margin: 0; }
        table { border-collapse: collapse; } th, td { border: 1px solid #ccc; padding: 4px 8px; text-align: left; }
        output { font-weight: 600; }
        section.category { margin-top: 20px; }
        h2 small { font-weight: 400; color: #666; font-size: 13px; }
        ol.tiles { list-style: none; padding: 0; margin: 8px 0; display: grid;
          grid-template-columns: repeat(auto-fill, minmax(150px, 1fr)); gap: 12px; }
        li.tile { background: #fff; border: 1px solid #ddd; border-radius: 8px; padding: 8px; }
        li.tile[data-withheld="true"] { opacity: 0.55; border-style: dashed; }
        .thumb { display: block; width: 100%; aspect-ratio: 4 / 3; object-fit: cover; border-radius: 4px; background: #eee; }
        .placeholder { display: flex; align-items: center; justify-content: center; text-align: center;
          font-weight: 600; color: #fff; }
        .placeholder.missing { background: #b3261e; } .placeholder.tampered { background: #7a1fa2; }
        .placeholder.not-bundled { background: #888; }
        .name { margin: 6px 0 2px; font-weight: 600; overflow-wrap: anywhere; }
        .badges { margin: 0; display: flex; flex-wrap: wrap; gap: 4px; }
        .badge { font-size: 11px; padding: 1px 6px; border-radius: 8px; background: #e8e8ed; }
        .badge.new { background: #ffd60a; } .badge.withheld { background: #c62828; color: #fff; }
        .empty { color: #b3261e; }
        """
}
