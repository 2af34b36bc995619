@_spi(CatalogTools) public import CasinoCatalog
import Foundation

/// Chooses, checks and budgets the images a snapshot bundles (``ImagePlan``), from recorded image
/// responses (``RecordedImages``: a recording's `images/`, or what ``ImageFetcher`` just fetched).
///
/// A URL is refused, with a warning naming it and its first game, and its games keep the URL for
/// the app to load: when it is not https or not on an allowed host, was not recorded (or its
/// fetch failed), is over ``PipelineConfiguration/ImageBundling/maxImageBytes``, or its bytes are
/// not a whole JPEG, PNG, WebP or GIF (``ImageSniffer``: an HTML error page or an SVG served as
/// `image/jpeg`, a truncated body). The type is the sniffed one, never the server's claim.
/// Identical bytes under several URLs are one file. Per edition, images are taken by rank until
/// ``PipelineConfiguration/ImageBundling/budgetBytesPerEdition`` is spent; from the first that does
/// not fit, every lower position is dropped and reported.
///
/// ```swift
/// let images = ImageBundler(bundling: bundling).bundle(catalog, from: try RecordedImages(directory: dir))
/// try SnapshotWriter(logger: logger).write(catalog, images: images, to: out)
/// ```
public struct ImageBundler: Sendable {
    /// What to bundle.
    public var bundling: PipelineConfiguration.ImageBundling

    public init(bundling: PipelineConfiguration.ImageBundling) {
        self.bundling = bundling
    }

    /// The images of `catalog` that `recorded` holds and that pass every check, within budget.
    @_spi(CatalogTools) public func bundle(_ catalog: Catalog, from recorded: RecordedImages) -> BundledImages {
        let plan = ImagePlan(catalog: catalog, bundling: bundling)
        var result = BundledImages()
        var origins: [String: String] = [:]
        for edition in plan.editions {
            for wanted in edition.wanted where origins[wanted.url] == nil { origins[wanted.url] = wanted.origin }
        }
        func warn(_ url: String, _ message: String) {
            result.warnings.append(
                PipelineWarning(
                    file: "\(recorded.directory.relativePath)/\(RecordedImages.indexFileName)",
                    record: "\(url.prefix(300)) (\(origins[url] ?? "?"))", message: message + "; the game keeps its URL"
                ))
        }
        // Each distinct URL is checked once, in URL order, whichever editions want it.
        var usable: [String: (data: Data, image: Manifest.Image)] = [:]
        for url in plan.urls {
            switch check(url, in: recorded) {
            case .success(let found): usable[url] = found
            case .failure(let problem): warn(url, problem.message)
            }
        }
        var kept = Set<String>()
        for edition in plan.editions {
            var spent = 0
            var files = Set<String>()
            var isSpent = false
            for wanted in edition.wanted {
                guard let (_, image) = usable[wanted.url] else { continue }
                let cost = files.contains(image.path) ? 0 : image.bytes
                if !isSpent, spent + cost <= bundling.budgetBytesPerEdition {
                    spent += cost
                    files.insert(image.path)
                    kept.insert(wanted.url)
                    continue
                }
                isSpent = true
                result.dropped += 1
                warn(
                    wanted.url,
                    "dropped from \(edition.edition): its images reached bundleImages.budgetBytesPerEdition "
                        + "(\(bundling.budgetBytesPerEdition) bytes) at position \(wanted.position + 1); raise it to bundle more"
                )
            }
        }
        for url in kept.sorted() {
            guard let (data, image) = usable[url] else { continue }
            result.entries.append(image)
            result.files[image.path] = data
        }
        return result
    }

    /// Why a URL cannot be bundled.
    struct Problem: Error {
        var message: String
    }

    /// The bytes and manifest entry for `url`, or why it is refused.
    private func check(
        _ url: String, in recorded: RecordedImages
    ) -> Result<(data: Data, image: Manifest.Image), Problem> {
        guard CatalogRules.isAbsoluteHTTPS(url), let host = URL(string: url)?.host else {
            return .failure(Problem(message: "refused: not an absolute https URL"))
        }
        guard bundling.allows(host: host) else {
            return .failure(Problem(message: "refused: host \(host.prefix(253)) is not in bundleImages.allowedHosts"))
        }
        switch recorded.body(for: url, maxBytes: bundling.maxImageBytes) {
        case nil:
            return .failure(Problem(message: "not recorded (or its fetch failed)"))
        case .failure(let error) where error.code == .inputTooLarge:
            return .failure(
                Problem(message: "refused: over bundleImages.maxImageBytes (\(bundling.maxImageBytes) bytes)"))
        case .failure(let error):
            return .failure(Problem(message: "unreadable: \(error.message)"))
        case .success(let data):
            switch ImageSniffer.sniff(data) {
            case .failure(let refusal):
                let claimed = recorded.index[url]?.contentType.map { " served as \($0.prefix(100))" } ?? ""
                return .failure(Problem(message: "refused (\(refusal.code)): \(refusal.description)\(claimed)"))
            case .success(let type):
                let digest = FileNaming.hexSHA256(data)
                let image = Manifest.Image(
                    url: url, path: Manifest.Image.path(sha256: digest, mediaType: type), bytes: data.count,
                    sha256: digest,
                    mediaType: type)
                return .success((data, image))
            }
        }
    }
}
