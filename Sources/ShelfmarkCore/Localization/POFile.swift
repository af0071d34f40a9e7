import Foundation

/// A gettext PO file, as translators' tools (Weblate, Crowdin, Poedit, Pootle) write it: a header
/// entry (`msgid ""`) with `Key: value` lines, then entries of `msgctxt`, `msgid`, `msgid_plural` and
/// `msgstr` or `msgstr[n]`, each a run of quoted C strings. Comments (`#`) are read past; obsolete
/// entries (`#~`) are left out. Every problem names its line.
public struct POFile: Sendable {
    public struct Entry: Sendable, Equatable {
        public var context: String?
        public var id: String
        public var idPlural: String?
        /// One text, or one per plural form (`msgstr[0]`, `msgstr[1]`, …).
        public var strings: [String]
        public var fuzzy: Bool
        public var line: Int
    }

    public struct Problem: Error, Sendable, Equatable, CustomStringConvertible {
        public var line: Int
        public var reason: String
        public var description: String { "line \(line): \(reason)" }
    }

    public var headers: [String: String]
    public var entries: [Entry]

    public init(_ text: String) throws(Problem) {
        var entries: [Entry] = []
        var current = Builder()
        var lastKeyword: Builder.Field?
        let lines = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
        for (index, raw) in lines.enumerated() {
            let number = index + 1
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.isEmpty {
                if current.started { entries.append(try current.finish()); current = Builder() }
                lastKeyword = nil
                continue
            }
            if line.hasPrefix("#") {
                if line.hasPrefix("#,") && line.contains("fuzzy") { current.fuzzy = true }
                continue
            }
            if line.hasPrefix("\"") {
                guard let field = lastKeyword else { throw Problem(line: number, reason: "a string with no keyword before it") }
                current.append(try Self.unquote(line, line: number), to: field)
                continue
            }
            guard let space = line.firstIndex(of: " ") else { throw Problem(line: number, reason: "expected a keyword and a string") }
            let keyword = String(line[..<space])
            let rest = line[line.index(after: space)...].trimmingCharacters(in: .whitespaces)
            let field: Builder.Field
            switch keyword {
            case "msgctxt":
                if current.started && current.id != nil { entries.append(try current.finish()); current = Builder() }
                field = .context
            case "msgid":
                if current.id != nil { entries.append(try current.finish()); current = Builder() }
                field = .id
            case "msgid_plural": field = .idPlural
            case "msgstr": field = .string(0); current.singular = true
            default:
                guard keyword.hasPrefix("msgstr["), keyword.hasSuffix("]"), let n = Int(keyword.dropFirst(7).dropLast()), (0..<16).contains(n)
                else { throw Problem(line: number, reason: "unknown keyword \(keyword.prefix(20))") }
                field = .string(n)
            }
            current.line = current.line ?? number
            current.start(field)
            current.append(try Self.unquote(rest, line: number), to: field)
            lastKeyword = field
        }
        if current.started { entries.append(try current.finish()) }
        var headers: [String: String] = [:]
        if let header = entries.first, header.id.isEmpty, header.context == nil {
            for line in (header.strings.first ?? "").split(separator: "\n") {
                guard let colon = line.firstIndex(of: ":") else { continue }
                headers[line[..<colon].trimmingCharacters(in: .whitespaces)] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
            entries.removeFirst()
        }
        self.headers = headers
        self.entries = entries
    }

    /// A C string literal: `"…"` with `\"`, `\\`, `\n`, `\t` escapes.
    static func unquote(_ text: String, line: Int) throws(Problem) -> String {
        guard text.count >= 2, text.hasPrefix("\""), text.hasSuffix("\"") else { throw Problem(line: line, reason: "a string must be in double quotes") }
        var out = ""
        var escaped = false
        for ch in text.dropFirst().dropLast() {
            if escaped {
                switch ch {
                case "n": out.append("\n")
                case "t": out.append("\t")
                case "\"", "\\": out.append(ch)
                default: throw Problem(line: line, reason: "unknown escape \\\(ch)")
                }
                escaped = false
            } else if ch == "\\" {
                escaped = true
            } else if ch == "\"" {
                throw Problem(line: line, reason: "a quote inside a string must be written \\\"")
            } else {
                out.append(ch)
            }
        }
        if escaped { throw Problem(line: line, reason: "a string ends with a lone backslash") }
        return out
    }

    private struct Builder {
        enum Field: Equatable { case context, id, idPlural, string(Int) }
        var context: String?
        var id: String?
        var idPlural: String?
        var strings: [Int: String] = [:]
        var singular = false
        var fuzzy = false
        var line: Int?
        var started: Bool { context != nil || id != nil || !strings.isEmpty }

        mutating func start(_ field: Field) {
            switch field {
            case .context: context = ""
            case .id: id = ""
            case .idPlural: idPlural = ""
            case .string(let n): strings[n] = ""
            }
        }

        mutating func append(_ text: String, to field: Field) {
            switch field {
            case .context: context = (context ?? "") + text
            case .id: id = (id ?? "") + text
            case .idPlural: idPlural = (idPlural ?? "") + text
            case .string(let n): strings[n] = (strings[n] ?? "") + text
            }
        }

        func finish() throws(Problem) -> Entry {
            let line = line ?? 0
            guard let id else { throw Problem(line: line, reason: "an entry without msgid") }
            guard !strings.isEmpty else { throw Problem(line: line, reason: "an entry without msgstr") }
            let count = (strings.keys.max() ?? 0) + 1
            guard strings.count == count else { throw Problem(line: line, reason: "plural forms are not numbered 0, 1, 2, … without gaps") }
            if idPlural == nil && count > 1 { throw Problem(line: line, reason: "msgstr[n] without msgid_plural") }
            return Entry(context: context, id: id, idPlural: idPlural, strings: (0..<count).map { strings[$0]! }, fuzzy: fuzzy, line: line)
        }
    }
}
