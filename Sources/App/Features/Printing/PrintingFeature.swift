import Vapor

/// Printing: label sheets, member cards, shelf signs, the printed catalog and a book's PDF. It keeps
/// no tables: everything it prints is read from the catalog, the members and the shelves.
enum PrintingFeature: Feature {
    static let name = "Printing"
    static let tables: [DataTable] = []

    static func register(api: APIRoutes, web: any RoutesBuilder) {
        PrintController.register(api)
    }
}
