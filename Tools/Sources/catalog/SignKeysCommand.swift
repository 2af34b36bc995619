import ArgumentParser
@_spi(CatalogTools) import CasinoCatalog
@_spi(CatalogTools) import CatalogPipeline
import Foundation
import Logging

struct SignKeysCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sign-keys",
        abstract: "Sign the list of online keys allowed to sign published sets, with a root key the app pins.",
        discussion: """
            Writes <output>: the online keys named by --key (their .pub files), the list's version and expiry,
            signed by --root-key. catalog publish --key-list attaches it to every manifest; an app accepts a
            set signed by a listed key while a pinned root verifies the list, the list has not expired and its
            version is not below the one it installed with.
            Rotate: sign a higher version naming the new key (and the old one until it stops publishing).
            Revoke: sign a higher version without the key, and publish with it; apps refuse the key from
            their next check. Re-sign before the expiry.
            """)

    @OptionGroup var global: GlobalOptions

    @Option(name: .long, help: "The root private key file (catalog keygen --name root).")
    var rootKey: String

    @Option(name: .long, help: "An online public key file to list (repeat for each key).")
    var key: [String] = []

    @Option(name: .long, help: "The list's version: above every list signed before.")
    var listVersion: Int

    @Option(name: .long, help: "How long apps accept the list: <n>d, <n>h, <n>m or <n>s (default: 365d).")
    var expiresIn = "365d"

    @Option(name: .long, help: "The signed key list file to write (a new file, or an older list).")
    var output: String

    func validate() throws {
        guard let seconds = DurationText.seconds(expiresIn), seconds >= 60, seconds <= 10 * 365 * 86_400 else {
            throw ValidationError(
                "--expires-in must be a minute to ten years, as <n>d, <n>h, <n>m or <n>s, got '\(expiresIn)'")
        }
        guard listVersion >= 1 else { throw ValidationError("--list-version must be at least 1, got \(listVersion)") }
        guard (1...SigningKeyList.maxKeys).contains(key.count) else {
            throw ValidationError("give 1 to \(SigningKeyList.maxKeys) --key files, got \(key.count)")
        }
    }

    func run() throws {
        let logger = global.makeLogger()
        let list = try reportingErrors(logger) {
            let root = try SigningKey.load(file: URL(fileURLWithPath: rootKey))
            let keys = try key.map { try KeyListFile.listedKey(publicKeyFile: URL(fileURLWithPath: $0)) }
            let list = SigningKeyList(
                version: listVersion, expiresAt: Date().addingTimeInterval(DurationText.seconds(expiresIn) ?? 0),
                keys: keys)
            try KeyListFile.write(try root.sign(list), version: listVersion, to: URL(fileURLWithPath: output))
            return list
        }
        logger.info(
            "\(output): key list version \(list.version), expires \(list.expiresAt), keys \(list.keys.map(\.id).joined(separator: ", ")); publish with --key-list \(output)"
        )
    }
}
