import Foundation

/// A series written into a title, as Goodreads (and the lists copied from it) write it:
/// "A Desolation Called Peace (Teixcalaan, #2)", "The Colour of Magic (Discworld, #1; Rincewind #1)",
/// "Harry Potter Boxed Set (Harry Potter, #1-7)", "Mort (Discworld #4)". The title without it, the
/// (first) series and the number.
public struct SeriesTitle: Sendable, Equatable {
    public var title: String
    public var series: String
    public var number: String?

    public init(title: String, series: String, number: String?) {
        (self.title, self.series, self.number) = (title, series, number)
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
        return SeriesTitle(title: title, series: series, number: number)
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
