import Foundation

/// A shelf's short code, printed beside its QR code and on spine labels: "B3", "ROOM12". A
/// code a person gives is Latin letters, digits, "-" and "." (upper case); a shelf made from a copy's
/// location text gets one made from its name.
public enum ShelfCode {
    public static let maxLength = 16

    /// The code as a person wrote it, in upper case, or nil when it is not one (empty, too long, or
    /// another character than a letter, a digit, "-" or ".").
    public static func normalized(_ text: String) -> String? {
        let code = text.trimmingCharacters(in: .whitespaces).uppercased()
        guard !code.isEmpty, code.count <= maxLength,
              code.unicodeScalars.allSatisfy({ ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "-" || $0 == "." }) else { return nil }
        return code
    }

    /// A code made from a shelf's name: its letters and digits, accents folded, at most eight
    /// ("Room 12" → "ROOM12", "Bücherregal B3" → "BUCHERRE"); a name without Latin letters or digits
    /// ("图画书") gives "S".
    public static func derived(from name: String) -> String {
        let folded = name.folding(options: [.diacriticInsensitive, .caseInsensitive, .widthInsensitive], locale: Locale(identifier: "en"))
        let kept = folded.unicodeScalars.filter { ("a"..."z").contains($0) || ("0"..."9").contains($0) }
        let code = String(String.UnicodeScalarView(kept)).uppercased()
        return code.isEmpty ? "S" : String(code.prefix(8))
    }

    /// `base`, or `base-2`, `base-3` … the first not in `taken` (codes in upper case).
    public static func unique(_ base: String, taken: Set<String>) -> String {
        guard taken.contains(base) else { return base }
        var n = 2
        while true {
            let suffix = "-\(n)"
            let candidate = String(base.prefix(maxLength - suffix.count)) + suffix
            if !taken.contains(candidate) { return candidate }
            n += 1
        }
    }
}

/// What a scan at a shelf names: another shelf — its QR code holds the address of the shelf's
/// page ("https://library.local/libraries/…/shelves/<id>"), or the older
/// "shelfmark:shelf:<location>" — or else a book (a copy's barcode or an ISBN).
public enum ShelfScan: Equatable, Sendable {
    case shelf(UUID)
    case shelfNamed(String)
    case item(String)

    public static func read(_ text: String) -> ShelfScan {
        let text = text.trimmingCharacters(in: .whitespacesAndNewlines)
        let prefix = "shelfmark:shelf:"
        if text.lowercased().hasPrefix(prefix) {
            let name = text.dropFirst(prefix.count).trimmingCharacters(in: .whitespaces)
            return name.isEmpty ? .item(text) : .shelfNamed(name)
        }
        // An address whose path ends in /shelves/<id> (a query or fragment after it is ignored).
        if text.contains("/shelves/") {
            let path = text.split(whereSeparator: { $0 == "?" || $0 == "#" }).first.map(String.init) ?? text
            let parts = path.split(separator: "/")
            if parts.count >= 2, parts[parts.count - 2] == "shelves", let id = UUID(uuidString: String(parts[parts.count - 1])) {
                return .shelf(id)
            }
        }
        return .item(text)
    }
}

/// What one scan in a stocktake found.
public enum StocktakeOutcome: String, Codable, Sendable, CaseIterable {
    /// On the shelf it belongs on.
    case here
    /// Its place is another shelf (or none): misplaced.
    case elsewhere
    /// Found here after all: scanned here while its place was elsewhere, then moved here.
    case moved
    /// The catalog says it is on loan, but it stands on the shelf (returned without being checked in).
    case onLoan = "on_loan"
    /// Neither a copy nor a book of this library.
    case unknown
    /// Expected on the shelf, not scanned before the stocktake was finished.
    case missing

    /// Seen on the shelf by this stocktake.
    public var seen: Bool { self != .unknown && self != .missing }
}
