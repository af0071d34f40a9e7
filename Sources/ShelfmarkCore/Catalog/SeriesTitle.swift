import Foundation

/// A series written into a title, as Goodreads (and the lists copied from it) write it:
/// "A Desolation Called Peace (Teixcalaan, #2)", "The Colour of Magic (Discworld, #1; Rincewind #1)",
/// "Harry Potter Boxed Set (Harry Potter, #1-7)", "Mort (Discworld #4)". The title without it, the
/// (first) series and the number.
public struct SeriesTitle: Sendable, Equatable {
    public var title: String
    public var series: String
    public var number: String?
    /// The other series it names after the first ("Mort (Discworld, #4; Death, #1)": Death #1).
    public var more: [SeriesEntry]

    public init(title: String, series: String, number: String?, more: [SeriesEntry] = []) {
        (self.title, self.series, self.number, self.more) = (title, series, number, more)
    }

    public static func parse(_ full: String) -> SeriesTitle? {
        let text = full.trimmingCharacters(in: .whitespaces)
        guard text.hasSuffix(")"), let open = text.lastIndex(of: "(") else { return nil }
        let title = text[..<open].trimmingCharacters(in: .whitespaces)
        let inside = text[text.index(after: open)..<text.index(before: text.endIndex)]
        // Several series: the first is the one that names the book's place.
        let first = inside.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
        guard !title.isEmpty, let hash = first.lastIndex(of: "#") else { return nil }
        let series = first[..<hash].trimmingCharacters(in: CharacterSet(charactersIn: ", ").union(.whitespaces))
        let number = first[first.index(after: hash)...].trimmingCharacters(in: .whitespaces)
        guard !series.isEmpty, number.range(of: #"^[0-9]+(\.[0-9]+)?(-[0-9]+(\.[0-9]+)?)?$"#, options: .regularExpression) != nil else { return nil }
        let more = SeriesEntry.list(inside.split(separator: ";").dropFirst().joined(separator: ";"))
        return SeriesTitle(title: title, series: series, number: number, more: more.filter { $0.name.lowercased() != series.lowercased() })
    }

    /// Where a volume number sorts: "2" before "2.5" before "10"; "1-7" at its first.
    public static func order(_ number: String?) -> Double {
        guard let number, let first = number.split(separator: "-").first, let n = Double(first) else { return .infinity }
        return n
    }

    /// The whole numbers missing between 1 and the highest whole volume the library has.
    public static func missing(_ numbers: [String?]) -> [Int] {
        var have = Set<Int>()
        for number in numbers.compactMap({ $0 }) {
            let parts = number.split(separator: "-").compactMap { Double($0) }
            guard let low = parts.first else { continue }
            let high = parts.count > 1 ? parts[1] : low
            guard low == low.rounded(), high == high.rounded(), low >= 1, high <= 10_000, low <= high else { continue }
            for n in Int(low)...Int(high) { have.insert(n) }
        }
        guard let top = have.max() else { return [] }
        return (1...top).filter { !have.contains($0) }
    }
}

/// One series a book belongs to besides its first: a name and the book's number in it.
public struct SeriesEntry: Sendable, Equatable, Codable, Hashable {
    public var name: String
    public var number: String?

    public static let maxEntries = 5
    public static let maxName = 300
    public static let maxNumber = 20

    public init(name: String, number: String? = nil) {
        (self.name, self.number) = (name, number)
    }

    /// Series as people write them, separated by semicolons: "Death, #1; Witches #2; Tiffany Aching".
    /// Each the name and, after a "#", the number; empty parts are left out, the same name once, at most
    /// `maxEntries`, each part cut to its bound.
    public static func list(_ text: String) -> [SeriesEntry] {
        var seen = Set<String>()
        var out: [SeriesEntry] = []
        for part in text.split(separator: ";") {
            let item = part.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !item.isEmpty else { continue }
            var name = item, number: String?
            // A number after the last "#" ("#4", "#1-7", "#1.5"); a "#" inside a name ("C# for Kids") stays in it.
            if let hash = item.lastIndex(of: "#") {
                let n = item[item.index(after: hash)...].trimmingCharacters(in: .whitespaces)
                if n.count <= maxNumber, n.range(of: #"^[0-9]+([.,][0-9]+)?(-[0-9]+([.,][0-9]+)?)?$"#, options: .regularExpression) != nil {
                    number = n
                    name = item[..<hash].trimmingCharacters(in: CharacterSet(charactersIn: ",").union(.whitespaces))
                }
            }
            name = String(name.prefix(maxName))
            guard !name.isEmpty, seen.insert(name.lowercased()).inserted else { continue }
            out.append(SeriesEntry(name: name, number: number))
            if out.count == maxEntries { break }
        }
        return out
    }

    /// The list as `list` reads it back: "Death #1; Witches #2".
    public static func text(_ entries: [SeriesEntry]) -> String {
        entries.map { $0.name + ($0.number.map { " #" + $0 } ?? "") }.joined(separator: "; ")
    }
}
