/// The fixed prose of the curated data's `README.md`, section by section; ``CuratedReadme`` fills
/// in the tables and lists computed from the generated files.
enum CuratedReadmeText {
    /// The README's name in the data directory.
    static let fileName = "README.md"

    /// The README's first line, which marks a data directory as the generator's.
    static let title = "# Embedded default data\n"

    static func introduction(editions: [String]) -> [String] {
        [
            String(title.dropLast()),
            "",
            "Synthesized by `catalog sample --curated --output data` (`CuratedRecording` in CatalogPipeline;",
            "deterministic) **in the shape of recorded responses** of an EveryMatrix-style casino API (see",
            "docs/PROVIDER_API.md). Nothing was fetched from a real server; every game, id and URL is invented.",
            "Do not edit by hand: change the generator and rerun it.",
            "",
            "## Layout",
            "",
            "```",
            "data/",
            "  provider/",
            "    recording.json                 baseURL, fetchedAt, editions, pageLimit (keys sorted)",
            "    <edition>/categories.json      GET /v1/casino/categories?language=<lang>&platform=iPhone",
            "                                       &pagination=offset=0,games(offset=0,limit=0)&fields=id,name,href,games",
            "    <edition>/games/<DIR>/<offset>.json",
            "                                   GET /v1/casino/games?language=<lang>&platform=iPhone",
            "                                       &pagination=offset=<offset>,limit=10&expand=vendor",
            "                                       &filter=categories(id=<C>)&sortedField=popularity",
            "    images/index.json              thumbnail URL (https) -> {file, contentType} of its recorded body",
            "    images/<sha256>                the body: a 64x48 picture (JPEG; every tenth game PNG, GIF or WebP)",
            "  feed/acme-feed.xml               the XML game feed (second source format)",
            "  catalog.json                     the pipeline configuration (editions, page size, caps)",
            "  README.md                        this file",
            "```",
            "",
            "Images: the thumbnail of each game in the first 6 places of a category's first page, as",
            "`catalog snapshot` bundles them (`bundleImages` in catalog.json). Every body is recorded as",
            "served with `image/jpeg`; the pipeline sniffs the bytes and trusts no header.",
            "",
            "Editions: \(editions.joined(separator: ", ")). `<offset>` is 0, 10, 20 ... (decimal, no padding). Each file is",
            "the verbatim response body: a collection envelope `{count, total, items, pages{first, next,",
            "previous, last}}`; `count` is the length of `items`, `total` equals the category's",
            "`games.total` in categories.json, `pages.next` is null on the last page.",
            "Categories with `games.total == 0` have no games directory.",
            "",
            "### The DIR rule",
            "",
            "Take the category id, lowercase ASCII letters (A-Z only), keep `a-z0-9`, replace every run of",
            "other characters by one `_`, strip leading/trailing `_`, cut to 40 characters (then strip a",
            "trailing `_` again), use `id` if that leaves nothing; then append `-` and the first 10 hex",
            "characters of sha256 over the id's UTF-8 bytes. This is `FileNaming.component(for:)`.",
            "",
        ]
    }

    static let categoriesHeader = [
        "## Categories (same ids, totals and games in both editions)",
        "",
        "| # | id | en name | fr name (JSON-escaped) | games.total | DIR | recorded pages (records) |",
        "|---|----|---------|------------------------|-------------|-----|--------------------------|",
    ]

    static func pool(games: Int, recorded: Int, full: Int) -> [String] {
        [
            "",
            "fr-iPhone quirks in categories.json: `NEW` is written decomposed (`e` + U+0301,",
            "\"Nouveaute\\u0301s\"), `ROULETTE` is `\" Roulette  \"` (leading/trailing spaces).",
            "",
            "Game pool: \(games) invented games, \(recorded) of them recorded; a game can be in several",
            "categories (the same record everywhere, e.g. Lara Jones is Cleopatra in POPULAR and VIDEOSLOTS).",
            "\(full) games carry the full field set (Lara Jones plus games spread over those recorded only",
            "once); the rest are lean (id, slug, name, description, launchUrl, thumbnail, backgroundImageUrl,",
            "hasFunMode, hasAnonymousFunMode, popularity, isNew, vendor, tags, theoreticalPayOut, platform).",
            "Full records are about 2.5 times the size of lean ones, so more of them would not fit, beside",
            "the images, under the 1 MB cap of data/ (its directories alone count 100 KB in `du -sb` on ext4).",
            "fr-iPhone differs from en-iPhone only in category names, descriptions and `language=fr` links.",
            "",
            "## Edge records (the normalizer must drop them)",
            "",
        ]
    }

    static let quirksHeader = [
        "",
        "All in both editions.",
        "",
        "## Where the quirks are",
        "",
        "Game id and the first en-iPhone file it appears in (the same games carry the same quirks in",
        "fr-iPhone and in every other category they appear in). Paths are relative to data/.",
        "",
    ]

    static func feed(fetchedAt: String, categories: Int, unused: String, games: Int) -> [String] {
        [
            "",
            "## The XML feed (`feed/acme-feed.xml`)",
            "",
            "Format of docs/PROVIDER_API.md's \"XML game feed\": UTF-8, no DOCTYPE, root",
            "`<feed provider=\"acme\" generated=\"\(fetchedAt)\" version=\"1\">`. \(categories) categories"
                + " with en/fr names (\(unused) has no game referencing it), \(games) games, each in",
            "1-3 categories with its position there; descriptions are CDATA holding HTML; image URLs are",
            "protocol-relative or https like the JSON's; `rtp` is a percent; `restrictedTerritories` is",
            "space-separated and includes subdivisions. French characters appear in category names,",
            "game names (Château Fortune, Le Bandit Doré, ...) and descriptions.",
            "",
        ]
    }
}
