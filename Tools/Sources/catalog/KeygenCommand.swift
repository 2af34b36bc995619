import ArgumentParser
@_spi(CatalogTools) import CatalogPipeline
import Foundation
import Logging

struct KeygenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keygen",
        abstract: "Write a new Ed25519 key pair for signing published snapshot sets or key lists.",
        discussion: """
            Writes <output>/<name>.key (mode 0600: keep it out of the repository; CI gets an online key's text
            in CATALOG_SIGNING_KEY) and <output>/<name>.pub, and prints the public key (base64 of its 32 bytes).
            Refuses to replace an existing key (exit 73).
            With one key, the app pins it and it signs sets. With root keys (two: one in use, one spare, both
            kept offline) the app pins the roots, a root signs the list of online keys (catalog sign-keys), and
            an online key signs sets (catalog publish --key-list).
            """)

    @OptionGroup var global: GlobalOptions

    @Option(name: .long, help: "The directory to write the key pair into (created when missing).")
    var output: String

    @Option(name: .long, help: "The key's file name without extension: catalog-signing, root, root-spare, online-2026…")
    var name = "catalog-signing"

    func validate() throws {
        guard !name.isEmpty, name.count <= 64, name.allSatisfy({ $0.isLetter || $0.isNumber || "-_.".contains($0) }),
            !name.hasPrefix(".")
        else {
            throw ValidationError("--name must be 1-64 letters, digits, '-', '_' or '.', not starting with '.'")
        }
    }

    func run() throws {
        let logger = global.makeLogger()
        let key = try reportingErrors(logger) {
            try SigningKey.generate(into: URL(fileURLWithPath: output), name: name)
        }
        print(key.publicKeyBase64)
        logger.info(
            "wrote \(output)/\(name).key (keep it secret) and \(name).pub (key id \(key.keyId)): pin the public key above in the app, or name \(name).pub on a key list"
        )
    }
}
