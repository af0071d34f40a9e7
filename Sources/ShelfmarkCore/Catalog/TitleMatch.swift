import Foundation

/// Which of a search's books is the one a list names by title and author only (a wishlist row
/// without an ISBN): the same title word for word — case, accents, punctuation and a leading article
/// aside; a subtitle may follow — and, when the list names authors, one of them by surname. Nil when
/// none is, or when two editions that fit have different ISBNs and nothing tells them apart beyond the
/// search's order (the first is the providers' best guess and is taken).
public enum TitleMatch {
    public struct Candidate: Sendable, Equatable {
        public var title: String
        public var subtitle: String?
        public var authors: [String]
        public var isbn13: String?

        public init(title: String, subtitle: String? = nil, authors: [String], isbn13: String?) {
            (self.title, self.subtitle, self.authors, self.isbn13) = (title, subtitle, authors, isbn13)
        }
    }

    static let articles: Set<String> = ["the", "a", "an", "der", "die", "das", "ein", "eine", "le", "la", "les", "l", "an"]

    /// The title's words without a leading article.
    static func words(_ title: String) -> [String] {
        var words = SearchText.tokens(title)
        if words.count > 1, let first = words.first, articles.contains(first) { words.removeFirst() }
        return words
    }

    /// The index of the candidate that is the book `title` by `authors`, with an ISBN-13; nil when none fits.
    public static func best(title: String, authors: [String], in candidates: [Candidate]) -> Int? {
        let wanted = words(title)
        guard !wanted.isEmpty else { return nil }
        let surnames = Set(authors.compactMap { name -> String? in
            let part = name.contains(",") ? String(name.split(separator: ",")[0]) : String(name.split(separator: " ").last ?? "")
            return SearchText.tokens(part).last
        })
        return candidates.firstIndex { c in
            guard c.isbn13 != nil else { return false }
            let full = words(c.title)
            // "Children of Time" is not "Children of Ruin"; "Momo" is "Momo: oder die seltsame Geschichte …".
            let sameTitle = full == wanted || words(c.title + " " + (c.subtitle ?? "")) == wanted
                || (full.count > wanted.count && Array(full.prefix(wanted.count)) == wanted && c.title.contains(":"))
            guard sameTitle else { return false }
            guard !surnames.isEmpty else { return true }
            let theirs = Set(c.authors.flatMap { SearchText.tokens($0) })
            return !surnames.isDisjoint(with: theirs)
        }
    }
}
