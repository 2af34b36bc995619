@_spi(CatalogTools) import CasinoCatalog
import Foundation

extension CatalogDiff {
    /// The most rows one edition's details list; the rest are counted.
    public static let maxDetailRows = 100

    /// The diff as GitHub-flavoured Markdown for a pull request comment: the two snapshots side by
    /// side, a row per edition that changed (categories, games, renames, pages, bytes), the images,
    /// then each edition's categories and games in a collapsed table. Every name and id from the
    /// snapshots is escaped, so a game name cannot break the table or inject markup.
    ///
    /// - Parameters:
    ///   - old: What to call the old snapshot (its directory, a branch).
    ///   - new: What to call the new one.
    public func markdown(old: String, new: String) -> String {
        var lines = ["### Catalogue snapshot: \(Self.escape(old)) → \(Self.escape(new))", ""]
        guard !isEmpty else {
            lines.append("No content or image differs (dates and generator aside).")
            return lines.joined(separator: "\n") + "\n"
        }
        let (oldImages, newImages) = (oldManifest.images ?? [], newManifest.images ?? [])
        lines += [
            "| | old | new |", "|---|---:|---:|",
            "| generated | \(Self.date(oldManifest.generatedAt)) | \(Self.date(newManifest.generatedAt)) |",
            "| editions | \(oldManifest.editions.count) | \(newManifest.editions.count) |",
            "| content files | \(oldManifest.files.count) | \(newManifest.files.count) |",
            "| content bytes (gzip) | \(oldManifest.files.reduce(0) { $0 + $1.compressedBytes }) | "
                + "\(newManifest.files.reduce(0) { $0 + $1.compressedBytes }) |",
            "| images | \(oldImages.count) (\(oldImages.reduce(0) { $0 + $1.bytes }) bytes) | "
                + "\(newImages.count) (\(newImages.reduce(0) { $0 + $1.bytes }) bytes) |",
            "",
        ]
        let changed = editions.filter { !$0.isEmpty }
        if !changed.isEmpty {
            lines += [
                "| edition | categories | games | renamed | pages | bytes (gzip) |",
                "|---|---:|---:|---:|---:|---:|",
            ]
            for edition in changed {
                let state = edition.isAdded.map { $0 ? " (added)" : " (removed)" } ?? ""
                lines.append(
                    "| \(Self.escape(edition.edition.id))\(state) | "
                        + "+\(edition.categoriesAdded.count) −\(edition.categoriesRemoved.count) | "
                        + "+\(edition.gamesAdded.count) −\(edition.gamesRemoved.count) | \(edition.gamesRenamed.count) | "
                        + "+\(edition.pagesAdded) −\(edition.pagesRemoved) ~\(edition.pagesChanged) | "
                        + "\(edition.oldBytes) → \(edition.newBytes) (\(Self.signed(edition.newBytes - edition.oldBytes))) |"
                )
            }
            lines.append("")
        }
        if !(files.addedImages.isEmpty && files.removedImages.isEmpty && files.changedImages.isEmpty) {
            lines += [
                "Images: +\(files.addedImages.count) −\(files.removedImages.count) ~\(files.changedImages.count)", "",
            ]
        }
        for edition in changed { lines += details(of: edition) }
        return lines.joined(separator: "\n") + "\n"
    }

    /// One edition's categories and games that changed, in a collapsed table.
    private func details(of edition: EditionChanges) -> [String] {
        let rows: [(String, String, String)] =
            edition.categoriesAdded.map { ("category added", $0.id, $0.name) }
            + edition.categoriesRemoved.map { ("category removed", $0.id, $0.name) }
            + edition.gamesAdded.map { ("game added", $0.id, $0.name) }
            + edition.gamesRemoved.map { ("game removed", $0.id, $0.name) }
            + edition.gamesRenamed.map { ("game renamed", $0.id, "\($0.old) → \($0.new)") }
        guard !rows.isEmpty else { return [] }
        var lines = [
            "<details><summary>\(Self.escape(edition.edition.id)): \(rows.count) "
                + "\(rows.count == 1 ? "change" : "changes") to categories and games</summary>",
            "", "| change | id | name |", "|---|---|---|",
        ]
        for (change, id, name) in rows.prefix(Self.maxDetailRows) {
            lines.append("| \(change) | \(Self.escape(id)) | \(Self.escape(name)) |")
        }
        if rows.count > Self.maxDetailRows { lines.append("| … | \(rows.count - Self.maxDetailRows) more | |") }
        return lines + ["", "</details>", ""]
    }

    /// `text` safe in a Markdown table cell: the characters that could end a cell or start markup,
    /// a link, an entity or HTML backslash-escaped (CommonMark makes each literal), line breaks as
    /// spaces, at most 200 characters.
    static func escape(_ text: String) -> String {
        var result = ""
        for character in text.prefix(200) {
            if character.isNewline {
                result.append(" ")
            } else if "\\`*_[]<>|~&".contains(character) {
                result.append("\\")
                result.append(character)
            } else {
                result.append(character)
            }
        }
        return result
    }

    private static func date(_ date: Date) -> String {
        ISO8601DateFormatter().string(from: date)
    }

    private static func signed(_ value: Int) -> String {
        value > 0 ? "+\(value)" : value < 0 ? "−\(-value)" : "±0"
    }
}
