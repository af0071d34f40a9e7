import Foundation

/// The words of a book's cover as OCR reads them, made into a search: the title and the author are
/// the large type, the rest is blurb, prices and noise. A line counts when most of it is letters;
/// its words of two or more letters go in, the first lines first, at most `maxWords`.
public enum CoverText {
    public static let maxWords = 8

    /// What to search for a cover: all its words first, then each line of its words alone, the longest
    /// first (OCR misreads a letter now and then — "IME" for "TIME" — and a search of every word then
    /// finds nothing, while "Adrian Tchaikovsky" alone still does). At most four, no two the same.
    public static func queries(_ text: String) -> [String] {
        var out: [String] = []
        let all = query(text)
        if !all.isEmpty { out.append(all) }
        let lines = text.split(whereSeparator: \.isNewline).map { query(String($0)) }
            .filter { line in line.split(separator: " ").count >= 2 || line.count >= 4 }
        for line in lines.sorted(by: { $0.count > $1.count }) where !out.contains(line) && out.count < 4 {
            out.append(line)
        }
        return out
    }

    public static func query(_ text: String) -> String {
        var words: [String] = []
        for line in text.split(whereSeparator: \.isNewline) {
            let letters = line.filter(\.isLetter).count
            let visible = line.filter { !$0.isWhitespace }.count
            // "£7.99", "ISBN 978…", "|~ ;" and the like are not the cover's words.
            guard visible > 0, letters * 4 >= visible * 3 else { continue }
            for word in line.split(whereSeparator: { !$0.isLetter && $0 != "'" && $0 != "’" && $0 != "-" }) {
                let clean = word.trimmingCharacters(in: CharacterSet(charactersIn: "'’-"))
                guard clean.count >= 2, clean.lowercased() != "isbn" else { continue }
                words.append(clean)
                if words.count == maxWords { return words.joined(separator: " ") }
            }
        }
        return words.joined(separator: " ")
    }
}
