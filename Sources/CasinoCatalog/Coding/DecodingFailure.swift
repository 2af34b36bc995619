import Foundation

/// Short, stable descriptions of decoding errors (`items[3].name: expected String, found a number`).
@_spi(CatalogTools) public enum DecodingFailure {
    /// Describes `error` with its coding path, without Foundation's debug noise.
    public static func describe(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return String(describing: error) }
        switch error {
        case .typeMismatch(let type, let context):
            return "\(path(context.codingPath)): expected \(type)"
        case .valueNotFound(let type, let context):
            return "\(path(context.codingPath)): expected \(type), found null"
        case .keyNotFound(let key, let context):
            return "\(path(context.codingPath + [key])): missing"
        case .dataCorrupted(let context):
            let underlying = (context.underlyingError as? NSError)?.localizedDescription
            let detail = [context.debugDescription, underlying].compactMap { $0 }.joined(separator: ": ")
            return context.codingPath.isEmpty ? "malformed JSON: \(detail)" : "\(path(context.codingPath)): \(detail)"
        @unknown default:
            return String(describing: error)
        }
    }

    /// `items[3].vendor.name` from a coding path.
    public static func path(_ codingPath: [any CodingKey]) -> String {
        var result = ""
        for key in codingPath {
            if let index = key.intValue {
                result += "[\(index)]"
            } else {
                result += result.isEmpty ? key.stringValue : "." + key.stringValue
            }
        }
        return result.isEmpty ? "(document)" : result
    }
}
