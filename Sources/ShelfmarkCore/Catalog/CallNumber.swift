import Foundation

/// Call numbers as a library shelves by them: Dewey ("823.914 ROW"), Library of Congress
/// ("PR6120.C43 C45 2015") and the simple schemes schools make ("F BYR", "J 590 ANI").
public enum CallNumber {
    public static let maxLength = 60

    /// The call number as stored: trimmed, inner runs of spaces made one, at most `maxLength`.
    public static func normalised(_ raw: String?) -> String? {
        guard let raw else { return nil }
        let words = raw.split(whereSeparator: { $0.isWhitespace })
        guard !words.isEmpty else { return nil }
        return String(words.joined(separator: " ").prefix(maxLength))
    }

    /// A key whose byte order is shelf order, compared as a librarian does:
    /// - the class number's whole part as a number ("82" before "590" before "823"),
    /// - its decimals digit by digit ("823" before "823.1" before "823.914" before "823.92"),
    /// - a Cutter's digits as decimals too ("C43" before "C5"; "R88" before "R884"),
    /// - any later number (a year, a volume) as a number ("v.2" before "v.10"),
    /// - letters alphabetically, case and accents aside; numbers before letters.
    public static func sortKey(_ raw: String) -> String {
        let text = raw.uppercased().folding(options: [.diacriticInsensitive, .widthInsensitive], locale: nil)
        var parts: [String] = []
        var chars = Array(text.prefix(maxLength * 2))
        chars.removeAll { $0 == "/" || $0 == "'" || $0 == "’" }
        var i = 0
        var sawClassNumber = false
        var lastWasLetters = false
        func digits(from start: Int) -> (String, Int) {
            var j = start
            while j < chars.count, chars[j].isASCII, chars[j].isNumber { j += 1 }
            return (String(chars[start..<j]), j)
        }
        while i < chars.count {
            let c = chars[i]
            if c.isASCII, c.isNumber {
                let (run, end) = digits(from: i)
                if lastWasLetters, sawClassNumber || parts.count > 1 {
                    // A Cutter's number ("C43", "R884"): decimals.
                    parts.append("." + run)
                    i = end
                } else {
                    var whole = String(run.drop(while: { $0 == "0" }))
                    if whole.count > 12 { whole = String(whole.prefix(12)) }
                    var token = String(repeating: "0", count: 12 - whole.count) + whole
                    i = end
                    if !sawClassNumber {
                        sawClassNumber = true
                        // The class number's decimals; none sorts before any ("823" < "823.1").
                        token += "."
                        if i + 1 < chars.count, chars[i] == ".", chars[i + 1].isASCII, chars[i + 1].isNumber {
                            let (fraction, fractionEnd) = digits(from: i + 1)
                            token += String(fraction.reversed().drop(while: { $0 == "0" }).reversed())
                            i = fractionEnd
                        }
                    }
                    parts.append(token)
                }
                lastWasLetters = false
            } else if c.isLetter {
                var j = i
                while j < chars.count, chars[j].isLetter { j += 1 }
                parts.append(String(chars[i..<j]))
                i = j
                lastWasLetters = true
            } else {
                lastWasLetters = false
                i += 1
            }
        }
        return parts.joined(separator: " ")
    }

    /// True when `a` stands before `b` on the shelf.
    public static func shelfOrder(_ a: String, _ b: String) -> Bool {
        let (ka, kb) = (sortKey(a), sortKey(b))
        return ka != kb ? ka.utf8.lexicographicallyPrecedes(kb.utf8) : a < b
    }

    /// The call number as a spine label breaks it, one part to a line: Dewey "823.914 ROW" →
    /// ["823.914", "ROW"]; LC "PR6120.C43 C45 2015" → ["PR", "6120", ".C43", "C45", "2015"];
    /// a long Dewey number keeps at most `width` characters a line ("513.2113" / "0942").
    public static func spineLines(_ raw: String, width: Int = 8) -> [String] {
        guard let text = normalised(raw) else { return [] }
        var lines: [String] = []
        for (index, word) in text.split(separator: " ").map(String.init).enumerated() {
            if index == 0, let lc = word.firstMatch(of: /^([A-Z]{1,3})(\d+(?:\.\d+)?)(\.[A-Z]\d*.*)?$/) {
                lines.append(String(lc.output.1))
                lines.append(String(lc.output.2))
                if let cutter = lc.output.3 {
                    // ".C43A5" on one line; a second Cutter glued to the first gets its own.
                    let pieces = String(cutter).split(separator: ".", omittingEmptySubsequences: true)
                    lines.append(contentsOf: pieces.map { "." + $0 })
                }
            } else if word.count > width, word.allSatisfy({ $0.isNumber || $0 == "." }) {
                var rest = Substring(word)
                while rest.count > width {
                    lines.append(String(rest.prefix(width)))
                    rest = rest.dropFirst(width)
                }
                if !rest.isEmpty { lines.append(String(rest)) }
            } else {
                lines.append(word)
            }
        }
        return lines
    }

    /// A Dewey number as MARC 082 gives it, made shelf-ready: segmentation marks and primes out
    /// ("813/.6" → "813.6", "823/.914" → "823.914"), at most three decimals for a school's spine.
    public static func dewey(_ raw: String) -> String? {
        let cleaned = raw.filter { $0.isNumber || $0 == "." }
        guard let match = cleaned.firstMatch(of: /^(\d{3})(?:\.(\d+))?/) else { return nil }
        let decimals = match.output.2.map { String($0.prefix(3)) } ?? ""
        return decimals.isEmpty ? String(match.output.1) : "\(match.output.1).\(decimals)"
    }

    /// Three letters of the first author's surname ("Joanne K. Rowling" → "ROW"), else of the
    /// title without its article ("The Hobbit" → "HOB"): what school spines carry under the class.
    public static func cutter(authors: [String], title: String?) -> String? {
        let source: String
        if let first = authors.first, !first.isEmpty {
            if let comma = first.firstIndex(of: ",") {
                source = String(first[..<comma])
            } else {
                source = String(first.split(separator: " ").last ?? "")
            }
        } else if let title {
            let words = title.split(separator: " ")
            let articles: Set<String> = ["the", "a", "an", "der", "die", "das", "ein", "eine", "le", "la", "les", "l", "an"]
            source = String((words.first.map { articles.contains($0.lowercased()) } == true && words.count > 1 ? words[1] : words.first) ?? "")
        } else {
            return nil
        }
        let letters = source.uppercased().folding(options: .diacriticInsensitive, locale: nil).filter(\.isLetter)
        return letters.isEmpty ? nil : String(letters.prefix(3))
    }

    /// A call number the library's scheme suggests: its prefix for the book's kind (a school's
    /// "F" for fiction, "J" for junior), the Dewey class when known, and the Cutter letters.
    /// "J" + 590 + "Animals" → "J 590 ANI"; Dewey 823.914 + Rowling → "823.914 ROW".
    public static func suggest(prefix: String?, dewey ddc: String?, authors: [String], title: String?) -> String? {
        var parts: [String] = []
        if let p = normalised(prefix) { parts.append(p.uppercased()) }
        if let d = ddc.flatMap(dewey) { parts.append(d) }
        guard !parts.isEmpty, let c = cutter(authors: authors, title: title) else { return nil }
        parts.append(c)
        return normalised(parts.joined(separator: " "))
    }

    /// The call number with its prefix set to `prefix` (a school's "F", "J", "REF"), as a library
    /// relabels a run of books: a leading word of letters only (at most five) followed by more is
    /// the old prefix and is replaced ("F BYR" → "J BYR"); a Dewey or LC number keeps all it says
    /// behind the new prefix ("823.914 ROW" → "REF 823.914 ROW"); a book without a call number gets
    /// the prefix and its Cutter letters ("F BYR"). An empty prefix takes the old one away. Nil when
    /// nothing is left (no call number, no prefix).
    public static func withPrefix(_ prefix: String?, callNumber: String?, authors: [String], title: String?) -> String? {
        let newPrefix = normalised(prefix)?.uppercased()
        var words = normalised(callNumber)?.split(separator: " ").map(String.init) ?? []
        if words.count > 1, let first = words.first, first.count <= 5, first.allSatisfy(\.isLetter) {
            words.removeFirst()
        }
        if words.isEmpty {
            guard let newPrefix, let c = cutter(authors: authors, title: title) else { return nil }
            return normalised(newPrefix + " " + c)
        }
        return normalised(([newPrefix].compactMap { $0 } + words).joined(separator: " "))
    }
}
