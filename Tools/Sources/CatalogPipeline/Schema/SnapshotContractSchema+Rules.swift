@_spi(CatalogTools) import CasinoCatalog

/// The rules of the contract that a JSON Schema can state, added to the schemas recorded from the
/// types. Each mirrors a Swift check and is built from its constants; a comment names what is left
/// to Swift where the schema can only approximate it (always by accepting more, never less).
extension SnapshotContractSchema {
    /// The rules of one recorded object: a description, refinements by property, object keywords.
    struct ObjectRules {
        var description: String
        var properties: [String: ObjectSchema.Refinement] = [:]
        var keywords: [String: JSONValue] = [:]
    }

    /// The rules of every recorded object, by definition name.
    static func objectRules(limits: SnapshotLimits) -> [String: ObjectRules] {
        let version: ObjectSchema.Refinement = .keywords(["const": .integer(CatalogSchema.version)])
        return [
            "Vendor": ObjectRules(
                description: "The studio that makes a game.",
                properties: [
                    "id": .definition("Identifier"), "name": .definition("Name"), "logo": .definition("HTTPSURL"),
                ]),
            "Game": ObjectRules(
                description: "One game as the lobby shows it.",
                properties: [
                    "id": .definition("Identifier"), "name": .definition("Name"), "slug": .definition("Name"),
                    "launchUrl": .definition("HTTPSURL"), "thumbnail": .definition("HTTPSURL"),
                    "backgroundImageUrl": .definition("HTTPSURL"),
                    "description": .keywords(
                        printableASCII(then: ["maxLength": .integer(CatalogRules.maxDescriptionLength)])),
                    // Sorted, too: the schema states only the uniqueness.
                    "platforms": .keywords(["uniqueItems": true]),
                    "tags": .items(.definition("Name")),
                    "rtp": .keywords(["exclusiveMinimum": 0, "maximum": 1]),  // a fraction in (0, 1]
                    "restrictedTerritories": .items(.definition("TerritoryCode")),
                ]),
            "Category": ObjectRules(
                description: "A lobby category; empty categories are not bundled.",
                properties: [
                    "id": .definition("Identifier"), "name": .definition("Name"), "href": .definition("HTTPSURL"),
                    "gamesTotal": range(1...CatalogRules.maxGamesTotal),
                ]),
            "CategoryList": ObjectRules(
                description: "An edition's categories in lobby order; ids unique (checked by Swift).",
                properties: ["items": .keywords(["minItems": 1])]),
            "GamesPage": ObjectRules(
                description: "One page of a category: offset a multiple of limit and below total, count equal to "
                    + "the number of items and at most limit, ids unique (those checked by Swift).",
                properties: [
                    "categoryId": .definition("Identifier"),
                    "offset": .keywords(["minimum": 0, "exclusiveMaximum": .integer(CatalogRules.maxGamesTotal)]),
                    "limit": range(1...CatalogRules.maxPageSize),
                    "count": range(0...CatalogRules.maxPageSize),
                    "total": range(1...CatalogRules.maxGamesTotal),
                    "items": .keywords(["maxItems": .integer(CatalogRules.maxPageSize)]),
                ]),
            "CategoriesSnapshot": envelopeRules(of: .categories, version: version),
            "GamesPageSnapshot": envelopeRules(of: .gamesPage, version: version),
            "ManifestEntry": ObjectRules(
                description: "One snapshot file; path and key unique in the manifest (checked by Swift).",
                properties: [
                    "path": .definition("SnapshotPath"),
                    "count": range(0...CatalogRules.maxGamesTotal),
                    "total": range(0...CatalogRules.maxGamesTotal),
                    "compressedBytes": range(0...limits.maxFileBytes),
                    "uncompressedBytes": range(0...limits.maxInflatedBytes),
                    "sha256": .keywords(["pattern": .string("^\(hexDigest)$")]),
                    "contentHash": .definition("ContentHash"),
                ],
                // A page holds at most a page of games; a category list up to maxGamesTotal categories.
                keywords: [
                    "if": ["properties": ["key": ["pattern": .string(SnapshotKey.pattern(of: .gamesPage))]]],
                    "then": ["properties": ["count": ["maximum": .integer(CatalogRules.maxPageSize)]]],
                ]),
            "Manifest": ObjectRules(
                description: "The table of contents of a snapshot directory (manifest.json). Editions sorted, "
                    + "the default among them, files sorted by path (checked by Swift).",
                properties: [
                    "schemaVersion": version,
                    "contentHash": .definition("ContentHash"),
                    "pageSize": range(1...CatalogRules.maxPageSize),
                    "editions": .keywords(["minItems": 1, "uniqueItems": true]),
                    "files": .keywords(["maxItems": .integer(limits.maxFileCount)]),
                    "images": .keywords(["maxItems": .integer(limits.maxImageCount)]),
                ]),
            "ManifestImage": ObjectRules(
                description: "A bundled image: the URL games name and its content-addressed file; sorted by unique "
                    + "URL, entries naming one file agree on it, files within maxImageTotalBytes (checked by Swift).",
                properties: [
                    "url": .definition("HTTPSURL"),
                    "path": .keywords([
                        "pattern": .string(
                            "^\(Manifest.Image.directoryName)/\(hexDigest)\\.(\(ImageMediaType.allCases.map(\.fileExtension).joined(separator: "|")))$"
                        )
                    ]),
                    "bytes": range(1...limits.maxImageBytes),
                    "sha256": .keywords(["pattern": .string("^\(hexDigest)$")]),
                ]),
        ]
    }

    /// `SnapshotIndex` (`index.json`: the manifest's head, `files` empty, no `images`, and the image
    /// count) and `SnapshotImageList` (`index/images.json`), from the recorded `Manifest`. The edition
    /// tables (`index/<edition>.tsv`) are text, not JSON: SnapshotFormat.md states them.
    static func indexDefinitions(
        manifest: JSONValue?, limits: SnapshotLimits
    ) throws(SchemaRecorder.Failure) -> [String: JSONValue] {
        guard case .object(var head)? = manifest, case .object(var properties)? = head["properties"],
            properties["files"] != nil, properties["images"] != nil
        else {
            throw SchemaRecorder.Failure("the index's schema needs the manifest's, with files and images", at: [])
        }
        properties["files"] = ["type": "array", "maxItems": 0]
        properties["images"] = false
        properties["imageCount"] = [
            "type": "integer", "minimum": 0, "maximum": .integer(limits.maxImageCount),
        ]
        head["properties"] = .object(properties)
        head["description"] = .string(
            "The snapshot index's head (index.json): the manifest without its files and images, and how many "
                + "images it lists; derived from manifest.json, byte for byte (checked by Swift).")
        return [
            "SnapshotIndex": .object(head),
            "SnapshotImageList": [
                "description":
                    "The manifest's images (index/images.json), as many as index.json says (checked by Swift).",
                "type": "object", "required": ["images", "schemaVersion"],
                "properties": [
                    "schemaVersion": ["type": "integer", "const": .integer(CatalogSchema.version)],
                    "images": [
                        "type": "array", "maxItems": .integer(limits.maxImageCount),
                        "items": ["$ref": .string(reference(to: "ManifestImage"))],
                    ],
                ],
            ],
        ]
    }

    /// The envelope of a snapshot file of one kind: its version, kind and key say what it holds.
    private static func envelopeRules(of kind: SnapshotKind, version: ObjectSchema.Refinement) -> ObjectRules {
        ObjectRules(
            description: "A snapshot file (\(kind.rawValue)), gzip-compressed; its edition and key agree with each "
                + "other and with its manifest entry (checked by Swift).",
            properties: [
                "schemaVersion": version,
                "kind": .keywords(["const": .string(kind.rawValue)]),
                "key": .keywords(["pattern": .string(SnapshotKey.pattern(of: kind))]),
                "contentHash": .definition("ContentHash"),
            ])
    }

    /// The string forms shared by several properties, which no type of their own records.
    static var sharedDefinitions: [String: JSONValue] {
        [
            "Identifier": text(maxLength: CatalogRules.maxIDLength, "An id: not blank, no control characters."),
            "Name": text(maxLength: CatalogRules.maxNameLength, "Display text: not blank, no control characters."),
            "HTTPSURL": [
                "description": "An absolute https URL of URL-safe ASCII with a host and no user info.",
                "type": "string", "format": "uri", "maxLength": .integer(CatalogRules.maxURLLength),
                // CatalogRules.isAbsoluteHTTPS, but for the port's range (1...65535, checked by Swift).
                "pattern": "^https://[A-Za-z0-9][A-Za-z0-9.-]*(:[0-9]{1,5})?([/?#][!#-;=?-\\[\\]_a-z~]*)?$",
            ],
            "TerritoryCode": [
                "description": "An ISO 3166-1 alpha-2 code, optionally with a subdivision (FR, CA-ON).",
                "type": "string", "pattern": "^[A-Z]{2}(-[A-Z0-9]{1,3})?$",  // CatalogRules.isTerritoryCode
            ],
            "ContentHash": [
                "description":
                    "sha256: and the lowercase hex SHA-256 of a payload's canonical JSON (RFC 8785, NFC text).",
                "type": "string", "pattern": .string("^\(CatalogRules.contentHashPrefix)\(hexDigest)$"),
            ],
            "SnapshotPath": [
                "description": "A relative /-separated path inside the snapshot directory.",
                "type": "string", "maxLength": .integer(CatalogRules.maxPathLength),
                // CatalogRules.isSafeRelativePath: components of [A-Za-z0-9._-], none empty, "." or "..".
                "pattern": .string(
                    "^(?!\\.\\.?(/|$))(?!.*/\\.\\.?(/|$))\(pathComponent)(/\(pathComponent))*$"),
            ],
        ]
    }

    /// The lowercase hex digits of a SHA-256.
    private static var hexDigest: String { "[0-9a-f]{\(CatalogRules.sha256HexLength)}" }

    private static var pathComponent: String { "[A-Za-z0-9._-]{1,\(CatalogRules.maxPathComponentLength)}" }

    /// Text as `requireText` checks it: not only spaces, no control characters (Unicode Cc), at
    /// most `maxLength` characters. Swift counts characters and JSON Schema code points, which agree
    /// on printable ASCII only; elsewhere the length is left to Swift, and so is other whitespace.
    private static func text(maxLength: Int, _ description: String) -> JSONValue {
        var members = printableASCII(then: ["maxLength": .integer(maxLength)])
        members["description"] = .string(description)
        members["type"] = "string"
        members["pattern"] = "^ *[^\\u0000-\\u0020\\u007f-\\u009f][^\\u0000-\\u001f\\u007f-\\u009f]*$"
        return .object(members)
    }

    /// `then` applied to printable ASCII strings only, where characters and code points are one.
    private static func printableASCII(then keywords: [String: JSONValue]) -> [String: JSONValue] {
        ["if": ["pattern": "^[ -~]*$"], "then": .object(keywords)]
    }

    private static func range(_ range: ClosedRange<Int>) -> ObjectSchema.Refinement {
        .keywords(["minimum": .integer(range.lowerBound), "maximum": .integer(range.upperBound)])
    }
}
