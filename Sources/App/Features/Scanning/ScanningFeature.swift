import Vapor

/// Reading a photo (barcodes, else the printed text) and drawing the codes labels, cards and shelves
/// carry. It owns no table.
enum ScanningFeature: Feature {
    static let name = "Scanning"
    static let tables: [DataTable] = []

    static func register(api: APIRoutes, web: any RoutesBuilder) {
        ScanController.register(api)
    }
}
