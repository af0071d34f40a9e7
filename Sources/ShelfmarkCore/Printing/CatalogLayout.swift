import Foundation

/// Where each heading and entry of a printed catalog goes: groups (a letter, a shelf, a
/// category, a level) one after another, each a heading and its entries, on pages of `usable`
/// height; a heading never ends a page (it moves to the next with its first entry). Fixed heights,
/// so the number of pages is known before a page is drawn ("page 3 of 41").
public struct CatalogLayout: Sendable, Equatable {
    public struct Place: Sendable, Equatable {
        public var page: Int
        public var y: Double
    }

    /// Each group's heading, then its entries' places (y from the top of the usable area).
    public var headings: [Place]
    public var entries: [[Place]]
    public var pages: Int

    public init(groupSizes: [Int], usable: Double, headingHeight: Double, entryHeight: Double) {
        var page = 0, y = 0.0
        var headings: [Place] = [], entries: [[Place]] = []
        let entryHeight = max(entryHeight, 1), headingHeight = max(headingHeight, 0)
        for size in groupSizes {
            if y > 0, y + headingHeight + min(entryHeight, Double(size) * entryHeight) > usable { page += 1; y = 0 }
            headings.append(Place(page: page, y: y))
            y += headingHeight
            var places: [Place] = []
            places.reserveCapacity(size)
            for _ in 0..<size {
                if y + entryHeight > usable, y > 0 { page += 1; y = 0 }
                places.append(Place(page: page, y: y))
                y += entryHeight
            }
            entries.append(places)
        }
        self.headings = headings
        self.entries = entries
        self.pages = groupSizes.isEmpty ? 1 : page + 1
    }
}
