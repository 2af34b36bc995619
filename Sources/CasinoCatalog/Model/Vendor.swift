/// The studio that makes a game (`NetEnt`, `RGS_Matrix`).
public struct Vendor: Codable, Sendable, Hashable, Identifiable {
    /// The provider's vendor identifier. Never empty.
    public var id: String
    /// The display name.
    public var name: String
    /// The vendor's logo (absolute https), when known.
    public var logo: String?

    public init(id: String, name: String, logo: String? = nil) {
        self.id = id
        self.name = name
        self.logo = logo
    }
}
