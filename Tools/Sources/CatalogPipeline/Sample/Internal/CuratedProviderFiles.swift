import Foundation

/// Renders the curated pool as verbatim provider responses: `recording.json`, each edition's
/// `categories.json` and the recorded games pages, in the field order and with the quirks the
/// embedded data documents.
struct CuratedProviderFiles {
    /// A rendered games page, kept for the README's quirk index.
    struct Page {
        let edition: String
        let category: String
        let directory: String
        let offset: Int
        let items: [PythonJSON]

        /// The page's path relative to the data directory.
        var path: String { "provider/\(edition)/games/\(directory)/\(offset).json" }
    }

    let pool: CuratedPool
    private typealias Catalogue = CuratedCatalogue

    /// Every provider file (paths relative to the data directory) and the games pages rendered.
    func render() -> (files: [(path: String, data: Data)], pages: [Page]) {
        let metadata: PythonJSON = .object([
            ("baseURL", .string(Catalogue.baseURL)), ("fetchedAt", .string(Catalogue.fetchedAt)),
            ("editions", .array(Catalogue.editions.map(PythonJSON.string))), ("pageLimit", .int(Catalogue.pageLimit)),
        ])
        var files: [(path: String, data: Data)] = [
            ("provider/\(RecordingLayout.metadataFileName)", metadata.fileData(sortKeys: true))
        ]
        var pages: [Page] = []
        for edition in Catalogue.editions {
            let language = String(edition.prefix { $0 != "-" })
            files.append(("provider/\(edition)/categories.json", categoriesResponse(language).fileData()))
            for category in Catalogue.categories where category.total > 0 {
                let records = pool.records[category.id] ?? []
                let directory = FileNaming.component(for: category.id)
                for offset in stride(from: 0, to: records.count, by: Catalogue.pageLimit) {
                    let end = min(offset + Catalogue.pageLimit, records.count)
                    let items = (offset..<end).map { position in
                        switch records[position] {
                        case .game(let index): gameItem(pool.games[index], language: language)
                        case .invalid(let record):
                            invalidItem(record, popularity: popularity(between: records, at: position))
                        }
                    }
                    let body: PythonJSON = .object([
                        ("count", .int(items.count)), ("total", .int(category.total)), ("items", .array(items)),
                        ("pages", pageLinks(language, category.id, offset: offset, total: category.total)),
                    ])
                    let page = Page(
                        edition: edition, category: category.id, directory: directory, offset: offset, items: items)
                    files.append((page.path, body.fileData()))
                    pages.append(page)
                }
            }
        }
        return (files, pages)
    }

    /// An edge record's popularity: halfway between its neighbours (one less than the one before
    /// when it comes last), rounded to hundredths, so the page stays sorted.
    private func popularity(between records: [CuratedPool.Record], at position: Int) -> Double {
        func popularity(_ record: CuratedPool.Record) -> Double {
            guard case .game(let index) = record else { preconditionFailure("edge records never neighbour") }
            return pool.games[index].popularity
        }
        let before = popularity(records[position - 1])
        let after = position + 1 < records.count ? popularity(records[position + 1]) : before - 1
        return PythonText.round2((before + after) / 2)
    }

    // MARK: - Envelopes and links

    private func categoriesResponse(_ language: String) -> PythonJSON {
        let url =
            "\(Catalogue.baseURL)/v1/casino/categories?language=\(language)&platform=iPhone"
            + "&pagination=offset=0,games(offset=0,limit=0)&fields=id,name,href,games"
        let items: [PythonJSON] = Catalogue.categories.map { category in
            let nested: PythonJSON =
                category.total > 0
                ? .string(
                    "\(Catalogue.baseURL)/v1/casino/games?language=\(language)&platform=iPhone"
                        + "&pagination=offset=0,limit=0&filter=categories(id=\(category.id))")
                : .null
            return .object([
                ("href", .string("\(Catalogue.baseURL)/v1/casino/categories/\(category.id)")),
                ("id", .string(category.id)),
                ("name", .string(language == "en" ? category.englishName : category.frenchName)),
                (
                    "games",
                    .object([
                        ("count", .int(0)), ("total", .int(category.total)), ("items", .array([])),
                        (
                            "pages",
                            .object([("first", nested), ("next", .null), ("previous", .null), ("last", nested)])
                        ),
                    ])
                ),
            ])
        }
        return .object([
            ("count", .int(items.count)), ("total", .int(items.count)), ("items", .array(items)),
            (
                "pages",
                .object([("first", .string(url)), ("next", .null), ("previous", .null), ("last", .string(url))])
            ),
        ])
    }

    private func gamesURL(_ language: String, _ category: String, offset: Int) -> String {
        "\(Catalogue.baseURL)/v1/casino/games?language=\(language)&platform=iPhone"
            + "&pagination=offset=\(offset),limit=\(Catalogue.pageLimit)"
            + "&expand=vendor&filter=categories(id=\(category))&sortedField=popularity"
    }

    private func pageLinks(_ language: String, _ category: String, offset: Int, total: Int) -> PythonJSON {
        let limit = Catalogue.pageLimit
        let last = (total - 1) / limit * limit
        return .object([
            ("first", .string(gamesURL(language, category, offset: 0))),
            ("next", offset + limit < total ? .string(gamesURL(language, category, offset: offset + limit)) : .null),
            ("previous", offset > 0 ? .string(gamesURL(language, category, offset: max(0, offset - limit))) : .null),
            ("last", .string(gamesURL(language, category, offset: last))),
        ])
    }

    /// Nested envelopes hold one page; the provider leaves their page links null.
    private func hrefEnvelope(_ hrefs: [String]) -> PythonJSON {
        .object([
            ("count", .int(hrefs.count)), ("total", .int(hrefs.count)),
            ("items", .array(hrefs.map { .object([("href", .string($0))]) })),
            ("pages", .object([("first", .null), ("next", .null), ("previous", .null), ("last", .null)])),
        ])
    }

    private func vendorObject(_ id: Int, expanded: Bool = true) -> PythonJSON {
        let vendor = Catalogue.vendor(id)
        let href = PythonJSON.string("\(Catalogue.baseURL)/v1/casino/vendors/\(id)")
        guard expanded else { return .object([("href", href)]) }
        return .object([
            ("href", href), ("id", .int(id)), ("name", .string(vendor.name)),
            ("displayName", .string(vendor.displayName)),
            ("image", .string("//\(Catalogue.cdn)/vendors/\(vendor.short).png")),
            ("logo", .string("//\(Catalogue.cdn)/vendors/\(vendor.short).svg")),
            ("isTopVendor", .bool(vendor.isTopVendor)),
        ])
    }

    // MARK: - Records

    /// A lean record, or the full field set for full games, with the game's quirks.
    private func gameItem(_ game: CuratedGame, language: String) -> PythonJSON {
        let quirks = game.quirks
        let text = CuratedText(game: game)
        let name = Catalogue.whitespaceNames[game.name] ?? game.name
        let description = quirks.contains(.noDescription) ? nil : text.description(language: language)
        let rtp = text.theoreticalPayOut
        let tagHrefs = game.tags.map { "\(Catalogue.baseURL)/v1/casino/tags/\(PythonText.quote($0))" }
        let vendor = vendorObject(game.vendor, expanded: !quirks.contains(.vendorHref))
        let launchUrl = PythonJSON.string("\(Catalogue.launch)/\(game.slug)")
        func flag(_ value: Bool) -> PythonJSON {
            quirks.contains(.stringBools) ? .string(value ? "1" : "0") : .bool(value)
        }
        let platform: PythonJSON =
            quirks.contains(.platformString)
            ? .string("iPhone,Android,iPad")
            : .array(
                (game.isLive ? ["iPhone", "Android", "iPad"] : ["PC", "iPhone", "Android", "iPad"]).map(
                    PythonJSON.string))
        let experimentalFlags = PythonJSON.object([("newTileLayout", .bool(true)), ("abBucket", .string("B"))])
        var item: [(String, PythonJSON)] = []
        guard game.isFull else {
            item.append(("id", .string(String(game.gid))))
            item.append(("slug", .string(game.slug)))
            item.append(("name", .string(name)))
            if let description { item.append(("description", .string(description))) }
            item.append(("launchUrl", launchUrl))
            item.append(("thumbnail", .string(text.imageURL("thumb"))))
            if !quirks.contains(.noBackground) { item.append(("backgroundImageUrl", .string(text.imageURL("bg")))) }
            item.append(("hasFunMode", flag(game.hasFunMode)))
            item.append(("hasAnonymousFunMode", flag(game.hasAnonymousFunMode)))
            item.append(("popularity", .double(game.popularity)))
            item.append(("isNew", flag(game.isNew)))
            item.append(("vendor", vendor))
            item.append(("tags", hrefEnvelope(tagHrefs)))
            if let rtp { item.append(("theoreticalPayOut", rtp)) }
            item.append(("platform", platform))
            if quirks.contains(.extraFields) { item.append(("experimentalFlags", experimentalFlags)) }
            return .object(item)
        }
        let vendorInfo = Catalogue.vendor(game.vendor)
        let slugStem = game.slug[..<(game.slug.lastIndex(of: "-") ?? game.slug.endIndex)]  // without the vendor
        item.append(("href", .string("\(Catalogue.baseURL)/v1/casino/games/\(game.gid)")))
        item.append(("id", quirks.contains(.intID) ? .int(game.gid) : .string(String(game.gid))))
        item.append(("gId", .int(game.gid)))
        item.append(("gameCode", .string(vendorInfo.short + "_" + slugStem.replacingOccurrences(of: "-", with: "_"))))
        item.append(("slug", .string(game.slug)))
        item.append(("name", .string(name)))
        if let description { item.append(("description", .string(description))) }
        item.append(("launchUrl", launchUrl))
        item.append(("thumbnail", .string(text.imageURL("thumb"))))
        item.append(("defaultThumbnail", .string(text.imageURL("default", extension: "png"))))
        if !quirks.contains(.noBackground) { item.append(("backgroundImageUrl", .string(text.imageURL("bg")))) }
        item.append(("logo", .string(text.imageURL("logo", extension: "png"))))
        item.append(
            (
                "icons",
                .object([
                    ("44", .string(text.imageURL("icon44", extension: "png"))),
                    ("114", .string(text.imageURL("icon114", extension: "png"))),
                ])
            ))
        item.append(("width", .int(game.width)))
        item.append(("height", .int(game.height)))
        item.append(("hasFunMode", flag(game.hasFunMode)))
        item.append(("hasAnonymousFunMode", flag(game.hasAnonymousFunMode)))
        item.append(
            (
                "realMode",
                .object([
                    ("fun", flag(game.hasFunMode)), ("anonymity", flag(game.hasAnonymousFunMode)),
                    ("realMoney", flag(true)),
                ])
            ))
        item.append(("popularity", .double(game.popularity)))
        item.append(("isNew", flag(game.isNew)))
        item.append(("promo", .object([("effective", .bool(false))])))
        item.append(("exclusive", .object([("effective", .bool(game.index % 9 == 0))])))
        item.append(("vendor", vendor))
        item.append(("subVendor", .string(vendorInfo.name)))
        item.append(("type", .string("casino-games")))
        if quirks.contains(.extraFields) {
            item.append(("experimentalFlags", experimentalFlags))
            item.append(("_trace", .string("edge-7f3a")))
        }
        item.append(
            (
                "advancedTags",
                .array(game.tags.map { .string(PythonText.slugify($0).replacingOccurrences(of: "-", with: "")) })
            ))
        item.append(("tags", hrefEnvelope(tagHrefs)))
        item.append(
            ("categories", hrefEnvelope(game.categories.map { "\(Catalogue.baseURL)/v1/casino/categories/\($0)" })))
        item.append(
            (
                "jackpots",
                hrefEnvelope(
                    game.jackpotNames.map { "\(Catalogue.baseURL)/v1/casino/jackpots/\(PythonText.quote($0))" })
            ))
        if let rtp { item.append(("theoreticalPayOut", rtp)) }
        item.append(("platform", platform))
        item.append(("languages", .array([.string("en"), .string("fr")])))
        item.append(("currencies", .array([.string("EUR"), .string("CAD")])))
        item.append(("license", .string("Malta")))
        item.append(("restrictedTerritories", .array(game.territories.map(PythonJSON.string))))
        item.append(
            (
                "maxBetRestriction",
                .object([
                    ("defaultMaxBet", .object([("EUR", .int(game.isLive ? 100 : 20))])),
                    ("defaultMaxWin", .object([("EUR", .int(250_000))])),
                    ("defaultMaxMultiplier", .int(5000)),
                ])
            ))
        return .object(item)
    }

    /// EDGE: a lean record the normalizer must drop (an empty name, or a non-https launchUrl).
    private func invalidItem(_ record: CuratedCatalogue.InvalidRecord, popularity: Double) -> PythonJSON {
        .object([
            ("id", .string(record.id)),
            ("slug", .string(record.slug)),
            ("name", .string(record.name)),
            ("launchUrl", .string(record.launchUrl ?? "\(Catalogue.launch)/\(record.slug)")),
            ("thumbnail", .string("//\(Catalogue.cdn)/cms2/base/_casino/0/\(record.id)00A.jpg")),
            ("hasFunMode", .bool(true)),
            ("hasAnonymousFunMode", .bool(false)),
            ("popularity", .double(popularity)),
            ("isNew", .bool(record.category == "NEW")),
            ("vendor", vendorObject(record.vendor)),
            ("tags", hrefEnvelope([])),
            ("platform", .array([.string("iPhone"), .string("Android")])),
        ])
    }
}
