@_spi(CatalogTools) import CasinoCatalog
@_spi(CatalogTools) import CatalogPipeline
public import Foundation
import Hummingbird
import NIOConcurrencyHelpers
@_spi(CatalogTools) import ProviderAPI

/// Bulk validation (`POST /v1/casino/cache/validate`) and the push payload of a catalogue change.
extension CatalogSimulator {
    /// Answers a ``CacheValidation/Request``: per key, current or changed (with content while the
    /// inline budget lasts), removed, or unknown. Faults and latency apply as to the other routes.
    func serveValidation(_ request: Request) async -> Response {
        let path = CacheValidation.path
        let (settings, fault, delay, randomStatus) = decide(path: path, query: "")
        if delay > 0 { try? await Self.pause(milliseconds: delay) }
        let response: Response
        if let status = fault?.kind == .status ? (fault?.status ?? 500) : randomStatus {
            response = Self.failure(status: status, retryAfter: settings.retryAfterSeconds)
        } else {
            switch await validationAnswer(request, version: settings.version) {
            case .success(let body): response = respond(body, to: request, maxAge: 0, fault: fault)
            case .failure(let refusal): response = refusal.response
            }
        }
        count(response, path: path)
        return response
    }

    /// A refused validation request: its status and message.
    private struct Refusal: Error {
        var status: Int
        var message: String
        var response: Response { CatalogSimulator.failure(status: status, message: message) }
    }

    /// The answer's JSON, or why the request is refused (`413` over the caps, `400` malformed).
    private func validationAnswer(_ request: Request, version: Int) async -> Result<Data, Refusal> {
        let body: ByteBuffer
        do {
            body = try await request.body.collect(upTo: CacheValidation.maxRequestBytes)
        } catch {
            return .failure(
                Refusal(
                    status: 413,
                    message: "the validation body is over \(CacheValidation.maxRequestBytes) bytes; "
                        + "send at most \(CacheValidation.maxKeys) keys per request"))
        }
        let asked: CacheValidation.Request
        do {
            asked = try CatalogCoding.decoder().decode(CacheValidation.Request.self, from: Data(body.readableBytesView))
        } catch {
            return .failure(
                Refusal(status: 400, message: "not CacheValidation JSON: \(DecodingFailure.describe(error))"))
        }
        guard asked.keys.count <= CacheValidation.maxKeys else {
            return .failure(
                Refusal(
                    status: 413,
                    message:
                        "\(asked.keys.count) keys is over \(CacheValidation.maxKeys) per request; split the request"))
        }
        guard (1...CatalogRules.maxPageSize).contains(asked.pageSize) else {
            return .failure(Refusal(status: 400, message: "pageSize must be 1...\(CatalogRules.maxPageSize)"))
        }
        let current = catalog.changed(toVersion: version)
        var budget = min(max(asked.inlineBytes, 0), CacheValidation.maxInlineBytes)
        var verdicts: [String: CacheValidation.Verdict] = [:]
        // Sorted, so which changes fit the budget does not depend on dictionary order.
        for (text, held) in asked.keys.sorted(by: { $0.key < $1.key }) {
            guard let key = SnapshotKey(text) else {
                verdicts[text] = CacheValidation.Verdict(invalidate: true, status: .unknown)
                continue
            }
            guard
                let (content, etag) = try? current.normalizedContent(
                    for: key, pageSize: asked.pageSize, body: { try self.body(for: $0, version: $1) }, version: version)
            else {
                verdicts[text] = CacheValidation.Verdict(invalidate: true, status: .removed)
                continue
            }
            guard let json = try? CanonicalJSON.encode(content) else { continue }  // as the app hashes it
            let hash = CatalogRules.contentHashPrefix + FileNaming.hexSHA256(json)
            if hash == held {
                verdicts[text] = CacheValidation.Verdict(invalidate: false, etag: etag)
                continue
            }
            let inline = json.count <= budget
            if inline { budget -= json.count }
            verdicts[text] = CacheValidation.Verdict(
                invalidate: true, contentHash: hash, etag: etag, content: inline ? content : nil)
        }
        do {
            return .success(
                try CatalogCoding.encoder().encode(
                    CacheValidation.Response(
                        keys: verdicts, withdrawals: withdrawals(newerThan: asked.withdrawalSequence))))
        } catch {
            return .failure(Refusal(status: 500, message: "cannot encode the answer: \(error)"))
        }
    }

    /// Raises the catalogue's version by one (every game's name changes) and returns the push
    /// payload that announces it: `{"catalog": {"invalidate": [...]}}`, the keys and category
    /// wildcards whose content differs between the two versions.
    public func bumpVersion() throws -> Data {
        let (old, new) = state.withLockedValue { state -> (Int, Int) in
            let old = state.settings.version
            state.settings.version = max(old, 1) + 1
            state.faultUses = [:]
            return (old, state.settings.version)
        }
        let patterns = catalog.changedPatterns(fromVersion: old, toVersion: new)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let texts: [String] = patterns.map(\.description)
        return try encoder.encode(["catalog": ["invalidate": texts]])
    }
}

extension SimulatedCatalog {
    /// A key's content as the app's upstream would map it, and the ETag of its `GET`; `nil` when
    /// the provider does not have it (no such edition or category, or a page past the end).
    fileprivate func normalizedContent(
        for key: SnapshotKey, pageSize: Int, body: (ProviderRequest, Int) throws -> Data, version: Int
    ) throws -> (CacheValidation.Content, String)? {
        guard let edition = editions[key.edition] else { return nil }
        switch key {
        case .categories:
            let data = try body(.categories(key.edition), version)
            let envelope = try JSONDecoder().decode(ProviderCollection<Lossy<ProviderCategory>>.self, from: data)
            return (.categories(ProviderMapping.categoryList(from: envelope).value), CatalogSimulator.etag(of: data))
        case .gamesPage(_, let categoryId, let offset):
            guard edition.categories.contains(where: { $0["id"]?.text == categoryId }) else { return nil }
            let total = self.total(of: categoryId, in: edition)
            guard offset == 0 || offset < total else { return nil }
            let data = try body(
                .gamesPage(key.edition, categoryId: categoryId, offset: offset, limit: pageSize), version)
            let envelope = try JSONDecoder().decode(ProviderCollection<Lossy<ProviderGame>>.self, from: data)
            let page = ProviderMapping.gamesPage(
                from: envelope, categoryId: categoryId, offset: offset, limit: pageSize
            ).value
            return (.gamesPage(page), CatalogSimulator.etag(of: data))
        }
    }

    /// The keys and category wildcards whose content differs between two versions.
    func changedPatterns(fromVersion old: Int, toVersion new: Int) -> [SnapshotKeyPattern] {
        let before = changed(toVersion: old)
        let after = changed(toVersion: new)
        var patterns: [SnapshotKeyPattern] = []
        for edition in Set(before.editions.keys).union(after.editions.keys).sorted(by: { $0.id < $1.id }) {
            let was = before.editions[edition]
            let now = after.editions[edition]
            if was?.categories != now?.categories { patterns.append(.key(.categories(edition))) }
            let ids = Set(was?.games.keys.map { $0 } ?? []).union(now?.games.keys.map { $0 } ?? [])
            for id in ids.sorted() where was?.games[id] != now?.games[id] {
                patterns.append(.categoryPages(edition, categoryId: id))
            }
        }
        return patterns
    }
}
