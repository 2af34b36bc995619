@_spi(CatalogTools) public import CasinoCatalog
public import Foundation

/// The files of the root/online key split: a public key `catalog keygen` wrote, to be named on a
/// list, and a ``SignedKeyList`` that `catalog sign-keys` writes and `catalog publish --key-list`
/// attaches to every manifest.
@_spi(CatalogTools) public enum KeyListFile {
    /// The most bytes a signed key list file may hold (64 keys take about 8 KiB).
    static let maxBytes = 64 << 10

    /// The online key in `publicKeyFile` (base64 of 32 bytes, as `catalog keygen` writes `NAME.pub`),
    /// with its id.
    ///
    /// - Throws: ``PipelineError`` `.missingInput`, or `.invalidConfiguration` for anything but such a key.
    public static func listedKey(publicKeyFile url: URL) throws(PipelineError) -> SigningKeyList.Key {
        let text = String(decoding: try FileInput.read(url, limit: 1024, what: "the public key"), as: UTF8.self)
        guard let bytes = Data(base64Encoded: text.trimmingCharacters(in: .whitespacesAndNewlines)), bytes.count == 32
        else {
            throw PipelineError(
                .invalidConfiguration, "not a public key (base64 of 32 bytes, as catalog keygen writes NAME.pub)",
                file: url.relativePath)
        }
        return SigningKeyList.Key(id: SigningKey.keyId(of: bytes), publicKey: bytes.base64EncodedString())
    }

    /// The signed key list in `url`, its list readable and sound (its signature is the app's to check).
    ///
    /// - Throws: ``PipelineError`` `.missingInput`, `.inputTooLarge`, or `.invalidConfiguration`
    ///   for a file that is not a signed key list.
    public static func read(from url: URL) throws(PipelineError) -> SignedKeyList {
        let data = try FileInput.read(url, limit: maxBytes, what: "the key list")
        let signed: SignedKeyList
        let list: SigningKeyList
        do {
            signed = try JSONDecoder().decode(SignedKeyList.self, from: data)
            list = try signed.decodedList()
        } catch {
            throw PipelineError(
                .invalidConfiguration, "not a signed key list (catalog sign-keys writes one): \(error)",
                file: url.relativePath)
        }
        if let problem = list.problem { throw PipelineError(.invalidConfiguration, problem, file: url.relativePath) }
        return signed
    }

    /// Writes `list` to `url` atomically: a new file, or over an older signed key list; never over
    /// anything else or a list of a version as high.
    ///
    /// - Throws: ``PipelineError`` `.outputNotReplaceable` when `url` holds something else, `.io`.
    public static func write(_ list: SignedKeyList, version: Int, to url: URL) throws(PipelineError) {
        if FileManager.default.fileExists(atPath: url.path) {
            let existing = try? read(from: url).decodedList()
            guard let existing, existing.version < version else {
                throw PipelineError(
                    .outputNotReplaceable,
                    existing.map { "holds key list version \($0.version); sign a higher --list-version" }
                        ?? "not a signed key list; not replacing it", file: url.relativePath)
            }
        }
        do {
            try list.encoded().write(to: url, options: .atomic)
        } catch {
            throw PipelineError(.io, "cannot write the key list: \(error.localizedDescription)", file: url.relativePath)
        }
    }
}
