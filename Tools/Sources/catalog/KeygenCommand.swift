import ArgumentParser
import CatalogPipeline
import Foundation
import Logging

struct KeygenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keygen",
        abstract: "Write a new Ed25519 key pair for signing published snapshot sets.",
        discussion: """
            Writes <output>/catalog-signing.key (mode 0600: keep it out of the repository; CI gets its text in
            CATALOG_SIGNING_KEY) and <output>/catalog-signing.pub, and prints the public key an app pins
            (base64 of its 32 bytes). Refuses to replace an existing key (exit 73).
            """)

    @OptionGroup var global: GlobalOptions

    @Option(name: .long, help: "The directory to write the key pair into (created when missing).")
    var output: String

    func run() throws {
        let logger = global.makeLogger()
        let key = try reportingErrors(logger) { try SigningKey.generate(into: URL(fileURLWithPath: output)) }
        print(key.publicKeyBase64)
        logger.info(
            "wrote \(output)/\(SigningKey.privateKeyFileName) (keep it secret) and \(SigningKey.publicKeyFileName); pin the public key above in the app (key id \(key.keyId))"
        )
    }
}
