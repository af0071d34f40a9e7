/// A translated text with named placeholders (`“{title}” is lent to {member} until {date}.`), cut
/// once into literal pieces and placeholders. A placeholder is `{` + lowercase letters, digits or `_`
/// + `}`; any other brace is text.
public struct MessageTemplate: Sendable, Equatable {
    public enum Piece: Sendable, Equatable {
        case text(String)
        case placeholder(String)
    }

    public let pieces: [Piece]

    public init(_ text: String) {
        var pieces: [Piece] = []
        var literal = ""
        var index = text.startIndex
        while index < text.endIndex {
            if text[index] == "{", let close = text[index...].firstIndex(of: "}") {
                let name = text[text.index(after: index)..<close]
                if !name.isEmpty, name.count <= 40, name.unicodeScalars.allSatisfy({ ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "_" }) {
                    if !literal.isEmpty { pieces.append(.text(literal)); literal = "" }
                    pieces.append(.placeholder(String(name)))
                    index = text.index(after: close)
                    continue
                }
            }
            literal.append(text[index])
            index = text.index(after: index)
        }
        if !literal.isEmpty { pieces.append(.text(literal)) }
        self.pieces = pieces
    }

    /// The placeholders' names in the order they first appear.
    public var placeholders: [String] {
        var seen: [String] = []
        for case .placeholder(let name) in pieces where !seen.contains(name) { seen.append(name) }
        return seen
    }

    /// The text with each placeholder replaced by its value; a placeholder without a value stays as written.
    public func render(_ values: [String: String]) -> String {
        var out = ""
        for piece in pieces {
            switch piece {
            case .text(let s): out += s
            case .placeholder(let name): out += values[name] ?? "{\(name)}"
            }
        }
        return out
    }
}
