@_spi(CatalogTools) extension PublishedManifest {
    /// The caps a published manifest is checked against.
    public struct Limits: Sendable, Hashable {
        /// The most snapshot files.
        public var maxFileCount: Int
        /// The largest file.
        public var maxFileBytes: Int
        /// The most bytes all files (the snapshot manifest included) may add up to.
        public var maxTotalBytes: Int

        public init(maxFileCount: Int, maxFileBytes: Int, maxTotalBytes: Int) {
            self.maxFileCount = maxFileCount
            self.maxFileBytes = maxFileBytes
            self.maxTotalBytes = maxTotalBytes
        }
    }

    /// A broken rule of a published manifest.
    public struct Problem: Sendable, Hashable, CustomStringConvertible {
        /// Which kind of rule.
        public enum Kind: String, Sendable, Hashable {
            /// Another format or schema version.
            case foreignFormat
            /// A path that could leave its directory, a repeated or reserved path, a hash that is
            /// not 64 lowercase hex digits, a size or version out of range, a withdrawal list that
            /// does not check.
            case unsafeEntry
            /// Over a cap.
            case overLimit
        }

        public var kind: Kind
        public var message: String
        public var description: String { message }
    }

    /// The names an installed generation keeps for itself; no snapshot file may take them.
    public static let reservedPaths: Set<String> = [Manifest.fileName, "published.json"]

    /// The first rule this manifest breaks, or `nil`: formats, then every entry (safe unique path,
    /// 64 lowercase hex digits, a size within the cap), then the totals, without overflow, then the
    /// withdrawal list (``WithdrawalList/check()``).
    public func problem(limits: Limits) -> Problem? {
        guard formatVersion == Self.currentFormatVersion else {
            return Problem(
                kind: .foreignFormat,
                message: "formatVersion is \(formatVersion), this build reads \(Self.currentFormatVersion)")
        }
        guard schemaVersion == CatalogSchema.version else {
            return Problem(
                kind: .foreignFormat,
                message: "schemaVersion is \(schemaVersion), this build reads \(CatalogSchema.version)")
        }
        guard version > 0 else {
            return Problem(kind: .unsafeEntry, message: "version must be positive, got \(version)")
        }
        guard files.count <= limits.maxFileCount else {
            return Problem(
                kind: .overLimit, message: "lists \(files.count) files, over the cap of \(limits.maxFileCount)")
        }
        guard manifest.path == Manifest.fileName else {
            return Problem(kind: .unsafeEntry, message: "manifest.path must be \(Manifest.fileName)")
        }
        var total = 0
        var paths = Set<String>()
        for (index, file) in ([manifest] + files).enumerated() {
            let name = index == 0 ? "manifest" : "files[\(index - 1)]"
            if index > 0 {
                guard CatalogRules.isSafeRelativePath(file.path), !Self.reservedPaths.contains(file.path) else {
                    return Problem(
                        kind: .unsafeEntry,
                        message: "\(name): path '\(file.path.prefix(120))' could leave its directory or is reserved")
                }
                guard paths.insert(file.path).inserted else {
                    return Problem(kind: .unsafeEntry, message: "\(name): path \(file.path) is listed twice")
                }
            }
            guard Self.isSHA256Hex(file.sha256) else {
                return Problem(kind: .unsafeEntry, message: "\(name): sha256 is not 64 lowercase hex digits")
            }
            guard (0...limits.maxFileBytes).contains(file.bytes) else {
                return Problem(
                    kind: .overLimit, message: "\(name): \(file.bytes) bytes, outside 0...\(limits.maxFileBytes)")
            }
            let (sum, overflow) = total.addingReportingOverflow(file.bytes)
            guard !overflow, sum <= limits.maxTotalBytes else {
                return Problem(
                    kind: .overLimit, message: "the files add up to more than the cap of \(limits.maxTotalBytes) bytes")
            }
            total = sum
        }
        do throws(WithdrawalListError) {
            try withdrawals?.check()
        } catch {
            return Problem(
                kind: error.code == .tooManyGames ? .overLimit : .unsafeEntry, message: "withdrawals: \(error.message)")
        }
        return nil
    }

    /// Whether `text` is a SHA-256 in lowercase hex: exactly 64 of `0-9a-f`, so it can name a file.
    public static func isSHA256Hex(_ text: String) -> Bool {
        let bytes = text.utf8
        return bytes.count == 64
            && bytes.allSatisfy {
                (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0)
                    || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0)
            }
    }

    /// The sum of every file's size, the snapshot manifest included (checked by ``problem(limits:)``).
    public var totalBytes: Int { files.reduce(manifest.bytes) { $0 &+ $1.bytes } }
}
