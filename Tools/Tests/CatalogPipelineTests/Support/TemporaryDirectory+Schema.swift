@_spi(CatalogTools) import CasinoCacheTesting
@_spi(CatalogTools) import CasinoCatalog
@_spi(CatalogTools) import CatalogPipeline
import Foundation

extension TemporaryDirectory {
    /// Writes the contract schema for `limits` into the directory.
    func schema(limits: SnapshotLimits = .default) throws -> URL {
        try write(SnapshotContractSchema.document(limits: limits), to: "snapshot-contract.schema.json")
    }
}
