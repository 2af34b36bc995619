/// The pipeline's identity, recorded in every manifest it writes.
public enum CatalogPipeline {
    /// The generator name written into manifests: `catalog`.
    public static let name = "catalog"
    /// The generator version written into manifests.
    public static let version = "0.1.0"
}
