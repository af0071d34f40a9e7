import Foundation
import ShelfmarkCore

/// Whether the kiosk asks members for their PIN after their card.
struct KioskSettings: LibrarySettings {
    var kioskAsksPin: Bool?

    static var schemaConstraints: [String: JSONValue] { [:] }

    func apply(to library: Library) throws {
        if let asks = kioskAsksPin { library.kioskAsksPIN = asks }
    }
}
