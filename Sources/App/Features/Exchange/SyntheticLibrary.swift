import Foundation
import ShelfmarkCore

/// Plausible books and people from a seeded generator (SplitMix64), for `shelfmark seed`.
struct SyntheticLibrary {
    private var state: UInt64

    init(seed: UInt64) { state = seed &* 0x9E37_79B9_7F4A_7C15 | 1 }

    struct Record {
        var isbn: String
        var title: String
        var authors: [String]
        var publisher: String
        var year: String
        var pages: Int
        var language: String
        var favorite: Bool
        var copies: Int
        var shelf: String

        /// A call number as a school writes it, made from the record (no draw of its own, so a seed
        /// makes the same library as before): "F OKA" for a story, "E OKA" for a picture book, a Dewey
        /// class from the ISBN's digits with the author's letters for reference and non-fiction.
        var callNumber: String? {
            let cutter = CallNumber.cutter(authors: authors, title: title) ?? "XXX"
            switch shelf {
            case "Picture books": return "E " + cutter
            case "Reference", "Non-fiction":
                let digits = isbn.compactMap(\.wholeNumberValue)
                guard digits.count == 13 else { return "F " + cutter }
                let whole = digits[3] * 100 + digits[4] * 10 + digits[5]
                return String(format: "%03d.%d%d", whole, digits[6], digits[7]) + " " + cutter
            default: return "F " + cutter
            }
        }
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func pick<T>(_ items: [T]) -> T { items[Int(next() % UInt64(items.count))] }
    mutating func int(_ range: ClosedRange<Int>) -> Int { range.lowerBound + Int(next() % UInt64(range.count)) }

    static let adjectives = ["Silent", "Hidden", "Last", "Golden", "Broken", "Secret", "Wild", "Little", "Lost", "Distant", "Curious",
                             "Midnight", "Forgotten", "Brave", "Crimson", "Winter", "Summer", "Iron", "Glass", "Northern", "Ancient",
                             "Quiet", "Endless", "Electric", "Wandering", "Bright", "Hollow", "Velvet", "Restless", "Emerald"]
    static let nouns = ["River", "Garden", "Kingdom", "Island", "Library", "Forest", "City", "House", "Mountain", "Ocean", "Star",
                        "Dragon", "Machine", "Letter", "Lighthouse", "Orchard", "Harbor", "Clock", "Bridge", "Map", "Voyage", "Fox",
                        "Crown", "Moon", "Station", "Festival", "Detective", "Orchestra", "Atlas", "Tide"]
    static let patterns = ["The %@ %@", "%@ %@", "A %@ %@", "The %@ of the %@", "Beyond the %@ %@", "Tales from the %@ %@",
                           "Der %@ %@", "Le %@ %@", "Éloge du %@ %@", "Ó %@ %@"]
    static let firstNames = ["Ada", "Ben", "Chloé", "Dmitri", "Eoin", "Fatima", "Gustav", "Hana", "Ingrid", "José", "Kofi", "Lena",
                             "Mateo", "Niamh", "Oscar", "Priya", "Quentin", "Rosa", "Siobhán", "Tomás", "Uma", "Viktor", "Wei",
                             "Xavier", "Yuki", "Zoë", "Aoife", "Björn", "Céline", "Dara"]
    static let lastNames = ["Lovelace", "Okafor", "Müller", "Ní Bhriain", "García", "Tanaka", "Kowalski", "Ó Súilleabháin", "Smith",
                            "Nguyen", "Haddad", "Johansson", "Dubois", "Rossi", "Petrov", "Chen", "Murphy", "Schmidt", "Silva",
                            "Kim", "Brennan", "Novak", "Fischer", "Lefèvre", "Mendoza", "Walsh", "Ibrahim", "Larsen", "Moreau", "Byrne"]
    static let publishers = ["Penguin", "HarperCollins", "Macmillan", "Hachette", "Random House", "Faber & Faber", "Gill Books",
                             "Suhrkamp", "Gallimard", "O'Brien Press", "Scholastic", "Bloomsbury"]
    static let languages = ["en", "en", "en", "en", "de", "ga", "fr", "zh"]
    static let shelves = ["A1", "A2", "B1", "B2", "C1", "Picture books", "Reference", "Teen", "Non-fiction"]

    mutating func title() -> Record {
        let pattern = pick(Self.patterns)
        var text = String(format: pattern, pick(Self.adjectives), pick(Self.nouns))
        if next() % 4 == 0 { text += " " + String(int(2...9)) }
        let body = (0..<9).map { _ in String(next() % 10) }.joined()
        let isbn = (try? ISBN(completingFirst12: "978" + body))?.isbn13 ?? ""
        var authors = [pick(Self.firstNames) + " " + pick(Self.lastNames)]
        if next() % 6 == 0 { authors.append(pick(Self.firstNames) + " " + pick(Self.lastNames)) }
        return Record(isbn: isbn, title: text, authors: authors, publisher: pick(Self.publishers), year: String(int(1950...2026)),
                      pages: int(24...900), language: pick(Self.languages), favorite: next() % 20 == 0, copies: int(1...3),
                      shelf: pick(Self.shelves))
    }

    mutating func person() -> (String, String, String) {
        (pick(Self.firstNames), pick(Self.lastNames), "Grade \(int(1...12))")
    }
}
