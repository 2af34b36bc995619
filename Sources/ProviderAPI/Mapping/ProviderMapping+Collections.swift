@_spi(CatalogTools) public import CasinoCatalog

extension ProviderMapping {
    /// Maps one collection item to a lobby game, or says why it is not usable: it did not decode,
    /// the mapping refused it, or the mapped game breaks a schema rule. The normalizer and the
    /// app's HTTP upstream both skip records through this one function.
    public static func usableGame(from item: Lossy<ProviderGame>) -> Result<Mapped<Game>, RecordError> {
        guard let record = item.value else {
            return .failure(RecordError(.undecodable, field: "", "does not decode: \(item.failure ?? "unknown error")"))
        }
        let mapped: Mapped<Game>
        do {
            mapped = try game(from: record)
        } catch {
            return .failure(
                RecordError(error.code, field: error.field, "game \(record.bestID ?? "without id"): \(error)"))
        }
        if let violation = mapped.value.violations().first {
            return .failure(RecordError(.invalidValue, field: violation.path, "game \(mapped.value.id): \(violation)"))
        }
        return .success(mapped)
    }

    /// Maps one category item to a lobby category, `nil` for a category without games (never shown,
    /// not an error), or says why it is not usable: it did not decode, the mapping refused it, or it
    /// breaks a schema rule. The normalizer and the app's HTTP upstream both decide which categories
    /// a lobby shows through this one function; where ids repeat, both keep the first usable one.
    public static func usableCategory(
        from item: Lossy<ProviderCategory>
    ) -> Result<Mapped<CasinoCatalog.Category>?, RecordError> {
        guard let record = item.value else {
            return .failure(RecordError(.undecodable, field: "", "does not decode: \(item.failure ?? "unknown error")"))
        }
        let mapped: Mapped<CasinoCatalog.Category>
        do {
            mapped = try category(from: record)
        } catch {
            return .failure(error)
        }
        guard mapped.value.gamesTotal > 0 else { return .success(nil) }
        if let violation = mapped.value.violations().first {
            return .failure(RecordError(.invalidValue, field: "", "\(violation)"))
        }
        return .success(mapped)
    }

    /// Maps a categories response to the lobby's category list: unusable categories and categories
    /// without games are left out (unusable ones with a note), duplicates keep the first.
    public static func categoryList(from response: ProviderCollection<Lossy<ProviderCategory>>) -> Mapped<CategoryList>
    {
        var notes: [String] = []
        var seen = Set<String>()
        var categories: [CasinoCatalog.Category] = []
        for (index, item) in (response.items ?? []).enumerated() {
            switch usableCategory(from: item) {
            case .failure(let error):
                notes.append("items[\(index)]: category skipped: \(error)")
            case .success(nil):
                continue
            case .success(let mapped?):
                if seen.insert(mapped.value.id).inserted {
                    categories.append(mapped.value)
                } else {
                    notes.append("items[\(index)]: duplicate category \(mapped.value.id) skipped")
                }
            }
        }
        return Mapped(value: CategoryList(items: categories), notes: notes)
    }

    /// Maps a games response to one page at the provider's `offset` and `limit`: unusable records
    /// and repeated ids are left out (with a note), which leaves the page shorter, never shifted.
    /// `total` is the response's (or, when it has none, what the page shows).
    public static func gamesPage(
        from response: ProviderCollection<Lossy<ProviderGame>>, categoryId: String, offset: Int, limit: Int
    ) -> Mapped<GamesPage> {
        var notes: [String] = []
        var seen = Set<String>()
        var games: [Game] = []
        let items = response.items ?? []
        for (index, item) in items.prefix(limit).enumerated() {
            switch usableGame(from: item) {
            case .failure(let error):
                notes.append("items[\(index)]: game skipped: \(error.message)")
            case .success(let mapped):
                if seen.insert(mapped.value.id).inserted {
                    games.append(mapped.value)
                } else {
                    notes.append("items[\(index)]: duplicate game \(mapped.value.id) skipped")
                }
            }
        }
        if items.count > limit { notes.append("\(items.count - limit) items past the limit \(limit) ignored") }
        // `offset` is the caller's and `total` the provider's: neither is trusted not to overflow.
        func end(_ count: Int) -> Int {
            let (sum, overflow) = offset.addingReportingOverflow(count)
            return overflow ? Int.max : sum
        }
        let total = max(response.total ?? end(items.count), end(games.count))
        return Mapped(
            value: GamesPage(categoryId: categoryId, offset: offset, limit: limit, total: total, items: games),
            notes: notes)
    }
}
