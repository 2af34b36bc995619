#if canImport(SwiftUI)
public import CasinoCache
public import CasinoCatalog
public import SwiftUI

/// The lobby screen: content on the first frame, silent updates after.
@available(iOS 17, macOS 14, tvOS 17, watchOS 10, *)
public struct LobbyView: View {
    @State private var model: LobbyModel

    public init(cache: CatalogCache, edition: Edition) {
        _model = State(initialValue: LobbyModel(cache: cache, edition: edition))
    }

    public var body: some View {
        List(model.categories) { category in
            Section(category.name) {
                ForEach(model.firstPages[category.id]?.items ?? []) { game in
                    Text(game.name)
                }
            }
        }
        .overlay(alignment: .bottom) {
            if model.state == .bundled || model.state == .stale { Text("Updating…").font(.footnote) }
        }
        .task { await model.run() }
    }
}
#endif
