@_spi(CatalogTools) import CasinoCache
@_spi(CatalogTools) import CasinoCatalog
import Foundation
@_spi(CatalogTools) import ProviderAPI

/// What catalogue sync reads from the network: a bulk validation answer (decoded as the app's
/// HTTP upstream decodes it, its inline content held to the schema's rules the way the cache
/// holds it), a push payload, the key patterns a push names, and an over-the-air set's signed
/// manifest and the published manifest inside it (decoded under a file-count cap, then checked
/// by its rules). Hostile bytes are an error or a count of rejected entries, never a trap; a
/// pattern prints back to itself.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSync(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let data = Data(bytes: start, count: count)
    if let response = try? CatalogCoding.decoder().decode(CacheValidation.Response.self, from: data) {
        for (text, verdict) in response.keys {
            _ = SnapshotKey(text)
            switch verdict.content {
            case .categories(let list)?: _ = list.violations()
            case .gamesPage(let page)?: _ = page.violations()
            case nil: break
            }
        }
    }
    if let push = try? CatalogInvalidation(json: data) {
        precondition(push.patterns.count <= CatalogInvalidation.maxPatterns, "more patterns than the cap")
        precondition(Set(push.patterns).count == push.patterns.count, "a pattern kept twice")
    }
    if let signed = try? CatalogCoding.decoder().decode(SignedManifest.self, from: data) {
        _ = signed.signatureBytes
        _ = signed.payloadBytes
        _ = signed.keyList?.signatureBytes
        _ = (try? signed.keyList?.decodedList())?.problem
    }
    if let list = try? CatalogCoding.decoder().decode(SigningKeyList.self, from: data), list.problem == nil {
        precondition(!list.keys.isEmpty && list.keys.count <= SigningKeyList.maxKeys, "a sound list out of its bounds")
        precondition(list.keys.allSatisfy { $0.publicKeyBytes?.count == 32 }, "a sound list with a key not of 32 bytes")
    }
    if let published = try? PublishedManifest.decode(data, maxFileCount: 100) {
        precondition(published.files.count <= 100, "decoded more files than the cap")
        _ = published.problem(limits: .init(maxFileCount: 100, maxFileBytes: 1 << 20, maxTotalBytes: 1 << 24))
    }
    if let text = String(data: data, encoding: .utf8), let pattern = SnapshotKeyPattern(text) {
        precondition(SnapshotKeyPattern(pattern.description) == pattern, "\(pattern) does not print back to itself")
    }
    return 0
}
