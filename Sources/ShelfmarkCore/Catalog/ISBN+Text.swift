import Foundation

/// Finding ISBNs in free text: OCR output, a pasted paragraph, a scanned back cover.
extension ISBN {
    /// Every ISBN in `text`, in order of appearance, without repeats. Thirteen-digit numbers must start
    /// with 978/979 and pass the checksum. Ten-digit numbers, which a phone number can imitate, must
    /// also either follow an "ISBN" label or be hyphenated exactly as the ISBN ranges say.
    public static func find(in text: String) -> [ISBN] {
        let ns = text as NSString
        let whole = NSRange(location: 0, length: ns.length)
        var hits: [(location: Int, isbn: ISBN)] = []
        var taken: [NSRange] = []
        for match in Self.thirteen.matches(in: text, range: whole) {
            if let isbn = try? ISBN(ns.substring(with: match.range)) { hits.append((match.range.location, isbn)) }
            taken.append(match.range)
        }
        for match in Self.ten.matches(in: text, range: whole) {
            guard !taken.contains(where: { NSIntersectionRange($0, match.range).length > 0 }) else { continue }
            let candidate = ns.substring(with: match.range)
            guard let isbn = try? ISBN(candidate) else { continue }
            let window = NSRange(location: max(0, match.range.location - 16), length: min(16, match.range.location))
            let labelled = Self.label.firstMatch(in: text, range: window) != nil
            let hyphenatedRight = candidate.contains { $0 == "-" || $0 == " " }
                && candidate.replacingOccurrences(of: " ", with: "-").uppercased() == isbn.hyphenatedISBN10
            if labelled || hyphenatedRight { hits.append((match.range.location, isbn)) }
        }
        var seen = Set<String>()
        return hits.sorted { $0.location < $1.location }.map(\.isbn).filter { seen.insert($0.isbn13).inserted }
    }

    // Digits may be separated by single hyphens or spaces; no digit may touch either end.
    private static let thirteen = try! NSRegularExpression(pattern: #"(?<![0-9])(?<![0-9][- ])97[89](?:[- ]?[0-9]){10}(?![0-9])"#)
    private static let ten = try! NSRegularExpression(pattern: #"(?<![0-9])(?<![0-9][- ])[0-9](?:[- ]?[0-9]){8}[- ]?[0-9Xx](?![0-9Xx])(?![- ][0-9])"#)
    private static let label = try! NSRegularExpression(pattern: #"ISBN(?:-?10)?[:\s]*$"#, options: [.caseInsensitive])
}
