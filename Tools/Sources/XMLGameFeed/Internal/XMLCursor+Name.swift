extension XMLCursor {
    /// The element and attribute names the feed's structure uses (docs/PROVIDER_API.md, "The XML
    /// game feed"), spelled as in the feed. The cursor recognizes them by libxml2's interned
    /// pointers, so reading a node's name costs no `String`.
    enum Name: String, CaseIterable {
        // Elements
        case feed, categories, category, games, game, name, vendor, description, thumbnail, background
        case launchUrl, platforms, platform, popularity, rtp, tags, tag, restrictedTerritories
        // Attributes (`id` and `position` serve several elements)
        case provider, generated, version, id, position, lang, slug, funMode, anonymousFunMode, isNew, ref
    }
}
