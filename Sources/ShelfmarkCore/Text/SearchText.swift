import Foundation

/// Folding and tokenising shared by the search index and the queries against it, so that what is
/// indexed and what is asked are cut the same way (case- and diacritic-insensitive).
public enum SearchText {
    /// Lower-cases and strips diacritics: "Éamonn Ó Súilleabháin" → "eamonn o suilleabhain".
    public static func fold(_ text: String) -> String {
        // Plain ASCII (most titles and names): folding is lower-casing.
        if text.utf8.allSatisfy({ $0 < 0x80 }) {
            return String(decoding: text.utf8.map { (0x41...0x5A).contains($0) ? $0 | 0x20 : $0 }, as: UTF8.self)
        }
        let folded = text.folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil)
        // Letters that folding leaves alone but people type without their stroke or ligature.
        var out = ""
        out.reserveCapacity(folded.count)
        for ch in folded {
            switch ch {
            case "ß": out += "ss"
            case "æ": out += "ae"
            case "œ": out += "oe"
            case "ø": out += "o"
            case "ł": out += "l"
            case "đ": out += "d"
            case "þ": out += "th"
            default: out.append(ch)
            }
        }
        return out
    }

    /// Words of folded text: runs of letters and digits. Matches the unicode61 tokenizer of SQLite FTS5
    /// and PostgreSQL's `simple` configuration closely enough that a query token is always a prefix
    /// of some indexed token when the user typed the start of a word.
    public static func tokens(_ text: String) -> [String] {
        var result: [String] = []
        var current = ""
        for scalar in fold(text).unicodeScalars {
            let isWordScalar = scalar.isASCII
                ? (("a"..."z").contains(scalar) || ("0"..."9").contains(scalar) || ("A"..."Z").contains(scalar))
                : CharacterSet.alphanumerics.contains(scalar)
            if isWordScalar {
                current.unicodeScalars.append(scalar)
            } else if !current.isEmpty {
                result.append(current)
                current = ""
            }
        }
        if !current.isEmpty { result.append(current) }
        return result
    }

    /// The words a search keeps and asks for: `tokens`, with Chinese and Japanese characters each a word
    /// of their own. Those languages write no space between words, so a run of them is one token, and a
    /// word from inside it ("魔法" in "哈利波特与魔法石") was the start of none; as characters, every one
    /// typed must be in the text. Korean writes spaces and stays in words.
    public static func searchWords(_ text: String) -> [String] {
        tokens(text).flatMap { token -> [String] in
            guard token.unicodeScalars.contains(where: isHanOrKana) else { return [token] }
            var words: [String] = []
            var current = ""
            for scalar in token.unicodeScalars {
                if isHanOrKana(scalar) {
                    if !current.isEmpty { words.append(current); current = "" }
                    words.append(String(scalar))
                } else {
                    current.unicodeScalars.append(scalar)
                }
            }
            if !current.isEmpty { words.append(current) }
            return words
        }
    }

    /// The words a query asks for: its first `maxQueryWords` search words. A query's length is the
    /// client's to choose; each word is a condition of the search, so their number has a bound.
    public static func queryWords(_ text: String) -> [String] {
        Array(searchWords(text).prefix(maxQueryWords))
    }

    public static let maxQueryWords = 32

    /// A Chinese character (the unified ideographs, their extensions and compatibility forms) or Japanese kana.
    public static func isHanOrKana(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x3040...0x30FF, 0x31F0...0x31FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xF900...0xFAFF, 0x20000...0x323AF: true
        default: false
        }
    }

    /// The text stored for searching a title, a member or a quote: its search words, space separated.
    public static func document(_ parts: [String?]) -> String {
        parts.compactMap { $0 }.flatMap(searchWords).joined(separator: " ")
    }

    /// Key that orders titles the way a reader expects in an A–Z list: folded, leading article dropped.
    public static func sortKey(_ title: String) -> String {
        let words = tokens(title)
        let articles: Set<String> = ["the", "a", "an", "der", "die", "das", "ein", "eine", "le", "la", "les", "el"]
        if words.count > 1, articles.contains(words[0]) {
            return words.dropFirst().joined(separator: " ")
        }
        return words.joined(separator: " ")
    }

    /// The A–Z section a title belongs to: its first sort letter, or "#" for anything that is not A–Z.
    public static func section(forSortKey key: String) -> String {
        guard let first = key.unicodeScalars.first, ("a"..."z").contains(first) else { return "#" }
        return String(first).uppercased()
    }
}

extension String {
    /// The text without leading and trailing white space and line breaks, like
    /// `trimmingCharacters(in: .whitespacesAndNewlines)` but without work when there is none.
    public var trimmed: String {
        let s = unicodeScalars
        guard let first = s.first, let last = s.last else { return self }
        if !first.properties.isWhitespace && !last.properties.isWhitespace { return self }
        var start = s.startIndex, end = s.endIndex
        while start < end, s[start].properties.isWhitespace { start = s.index(after: start) }
        while end > start, s[s.index(before: end)].properties.isWhitespace { end = s.index(before: end) }
        return String(s[start..<end])
    }
}

extension String {
    /// Text as a person meant it, for storing: control characters other than tab and line breaks
    /// removed (a NUL cut text short in SQLite and is refused by PostgreSQL; none is ever meant in
    /// a title or a name), composed to NFC (so that text the same to a reader is the same bytes to
    /// the database's unique indexes and comparisons), then trimmed.
    public var cleanedInput: String {
        let isPlain = utf8.allSatisfy { ($0 >= 0x20 && $0 < 0x7F) || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
        if isPlain { return trimmed }
        var scalars = String.UnicodeScalarView()
        for scalar in unicodeScalars where !String.isUnwantedControl(scalar) { scalars.append(scalar) }
        return String(scalars).precomposedStringWithCanonicalMapping.trimmed
    }

    /// C0 controls except tab, line feed and carriage return, and DEL.
    static func isUnwantedControl(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x09, 0x0A, 0x0D: false
        case 0x00...0x1F, 0x7F: true
        default: false
        }
    }
}
