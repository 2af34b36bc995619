@_spi(CatalogTools) import CasinoCatalog
import Foundation
@_spi(CatalogTools) import ProviderAPI

/// Decodes JSON input, turning every failure into a ``PipelineError`` that names the file and
/// the path inside it.
enum JSONInput {
    static func decode<Value: Decodable>(
        _ type: Value.Type, from data: Data, file: String, record: String? = nil
    ) throws(PipelineError) -> Value {
        guard !data.isEmpty else {
            let what = record == nil ? "the file is empty (0 bytes); re-record or remove it" : "the line is empty"
            throw PipelineError(.malformedInput, what, file: file, record: record)
        }
        do {
            return try CatalogCoding.decoder().decode(type, from: data)
        } catch {
            throw PipelineError(.malformedInput, DecodingFailure.describe(error), file: file, record: record)
        }
    }
}
