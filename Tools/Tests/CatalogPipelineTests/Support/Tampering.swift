@_spi(CatalogTools) import CasinoCatalog
import Foundation
import Testing

/// One change to a valid snapshot directory: a value replaced or removed in one file's JSON, or
/// caps lower than the files' sizes and counts.
struct Tampering: Sendable, CustomTestStringConvertible {
    var file: SnapshotDirectoryFixture.File
    /// `/`-separated keys and indices into the file's JSON; empty for no change.
    var pointer: String
    /// The new value as JSON text; `nil` removes the key.
    var value: String?
    /// The caps both sides apply.
    var limits = SnapshotLimits.default
    /// Where a schema must report the error: the changed value, or the object that lost a key.
    var errorPath: String
    /// Whether the Swift reader's error names the field (see ``field``).
    var isFieldNamedBySwift: Bool
    var testDescription: String

    /// Replaces the value at `pointer` in `file` with the JSON `value`, or removes it when `nil`.
    init(
        _ file: SnapshotDirectoryFixture.File, _ pointer: String, _ value: String?, _ description: String,
        isFieldNamedBySwift: Bool = true
    ) {
        self.file = file
        self.pointer = pointer
        self.value = value
        self.errorPath = value == nil ? pointer.split(separator: "/").dropLast().joined(separator: "/") : pointer
        self.isFieldNamedBySwift = isFieldNamedBySwift
        self.testDescription = description
    }

    /// Changes no file, but reads the directory with `limits`; the manifest breaks them at `errorPath`.
    init(limits: SnapshotLimits, errorAt errorPath: String, _ description: String) {
        self.init(.manifest, "", nil, description)
        self.limits = limits
        self.errorPath = errorPath
    }

    /// The name of the changed field (`thumbnail`), which the Swift reader's error must mention.
    var field: String {
        let path = pointer.isEmpty ? errorPath : pointer
        return path.split(separator: "/").last { Int($0) == nil }.map(String.init) ?? ""
    }

    /// The definition the file must satisfy.
    var definition: String {
        switch file {
        case .manifest: "Manifest"
        case .categories: "CategoriesSnapshot"
        case .page: "GamesPageSnapshot"
        }
    }

    /// The change, for ``SnapshotDirectoryFixture/write(to:edit:)``.
    var edit: SnapshotDirectoryFixture.Edit? {
        guard !pointer.isEmpty else { return nil }
        let steps = pointer.split(separator: "/").map(String.init)
        let value = self.value
        return (
            file,
            { object in
                let replacement = try value.map {
                    try JSONSerialization.jsonObject(with: Data($0.utf8), options: .fragmentsAllowed)
                }
                object = Self.replacing(steps[...], with: replacement, in: object) as! [String: Any]
            }
        )
    }

    private static func replacing(_ steps: ArraySlice<String>, with value: Any?, in node: Any) -> Any {
        guard let step = steps.first else { return value as Any }
        let rest = steps.dropFirst()
        if var array = node as? [Any], let index = Int(step) {
            if rest.isEmpty, value == nil {
                array.remove(at: index)
            } else {
                array[index] = replacing(rest, with: value, in: array[index])
            }
            return array
        }
        var object = node as! [String: Any]
        object[step] = rest.isEmpty && value == nil ? nil : replacing(rest, with: value, in: object[step] as Any)
        return object
    }
}
