/// A spoken (or typed) phrase about reading progress turned into a page, a percentage or a
/// number of pages read since last time: "page 157", "157", "one hundred and fifty-seven",
/// "Seite hundertsiebenundfünfzig", "leathanach céad caoga a seacht", "第一百五十七页", "50 percent",
/// "百分之五十", "20 more pages". Numbers from 1 to 9,999 in English, German, Irish and Chinese.
///
/// Pure and allocation-light: a phrase is folded (lower case, no accents) and cut into tokens once;
/// each language's number grammar reads groups of tokens; the group a page word, a percent word or a
/// "more" word points at wins, else the first number said.
public enum SpokenProgress: Equatable, Sendable {
    case page(Int)
    case percent(Int)
    /// "+20", "20 more pages": pages read since the last recorded position.
    case pagesRead(Int)

    public static let pageRange = 1...9_999
    public static let percentRange = 0...100

    /// The four languages whose number words are understood.
    public enum Language: String, Sendable, CaseIterable {
        case en, de, ga, zh
    }

    public enum Problem: Error, Equatable, Sendable {
        /// No number in the phrase ("didn't catch a page number").
        case noNumber
        /// A number outside 1–9,999 (pages) or 0–100 (percent).
        case outOfRange(Int)
    }

    /// Longest phrase read; a recogniser's transcript of one sentence is far shorter.
    public static let maxPhraseLength = 200

    /// Reads `phrase`, trying `language`'s number words first and then the others' (a German
    /// recogniser may hear an English reader). Digits and Chinese numerals are read in every language.
    public static func parse(_ phrase: String, language: Language = .en) throws(Problem) -> SpokenProgress {
        let tokens = Tokenizer.tokens(of: phrase.count > maxPhraseLength ? String(phrase.prefix(maxPhraseLength)) : phrase)
        var groups = Grammar.symbolGroups(tokens)
        var wordGroups = Grammar.wordGroups(tokens, language: language)
        if wordGroups.isEmpty && groups.isEmpty {
            for other in Language.allCases where other != language {
                wordGroups = Grammar.wordGroups(tokens, language: other)
                if !wordGroups.isEmpty { break }
            }
        }
        groups.append(contentsOf: wordGroups)
        guard !groups.isEmpty else { throw .noNumber }
        groups.sort { $0.start < $1.start }
        let marked = groups.map { ($0, Grammar.mark(of: $0, in: tokens)) }
        let choice = marked.first { $0.1 == .relative }
            ?? marked.first { $0.1 == .percent }
            ?? marked.first { $0.1 == .page }
            ?? marked.first { $0.1 == .pageAfter }
            ?? marked[0]
        let value = choice.0.value
        switch choice.1 {
        case .percent:
            guard percentRange.contains(value) else { throw .outOfRange(value) }
            return .percent(value)
        case .relative:
            guard pageRange.contains(value) else { throw .outOfRange(value) }
            return .pagesRead(value)
        case .page, .pageAfter, .none:
            guard pageRange.contains(value) else { throw .outOfRange(value) }
            return .page(value)
        }
    }
}

// MARK: - Tokens

enum SpokenToken: Equatable {
    /// A run of Latin letters, folded: lower case, accents and umlauts removed, ß as ss.
    case word(String)
    /// A run of digits (with thousands separators or a decimal part already applied).
    case number(Int)
    /// A run of Chinese numerals, unread.
    case hanNumber([Character])
    /// One other Chinese character (页, 第, 又 …).
    case han(Character)
    case percentSign
    case plusSign
}

enum Tokenizer {
    static func tokens(of phrase: String) -> [SpokenToken] {
        var tokens: [SpokenToken] = []
        tokens.reserveCapacity(12)
        var word = ""
        var digits: [Int] = []        // the current digit run's parts split at separators
        var digitWidths: [Int] = []
        var separator: Character? = nil
        var han: [Character] = []

        func flushWord() {
            if !word.isEmpty { tokens.append(.word(word)); word = "" }
        }
        func flushDigits() {
            guard !digits.isEmpty else { return }
            tokens.append(.number(Self.value(parts: digits, widths: digitWidths)))
            digits.removeAll(keepingCapacity: true); digitWidths.removeAll(keepingCapacity: true)
            separator = nil
        }
        func flushHan() {
            if !han.isEmpty { tokens.append(.hanNumber(han)); han.removeAll() }
        }

        for scalar in phrase.unicodeScalars {
            let v = scalar.value
            // Digits, ASCII or full width.
            var digit: Int? = nil
            if v >= 0x30 && v <= 0x39 { digit = Int(v - 0x30) } else if v >= 0xFF10 && v <= 0xFF19 { digit = Int(v - 0xFF10) }
            if let d = digit {
                flushWord(); flushHan()
                if digits.isEmpty || separator != nil {
                    digits.append(d); digitWidths.append(1); separator = nil
                } else {
                    let last = digits.count - 1
                    if digits[last] < 100_000_000 { digits[last] = digits[last] * 10 + d }
                    digitWidths[last] += 1
                }
                continue
            }
            if (scalar == "," || scalar == ".") && !digits.isEmpty && separator == nil {
                separator = Character(scalar)   // decided by what follows
                continue
            }
            if separator != nil { separator = nil }   // "157." at a sentence's end
            flushDigits()
            if hanNumerals[scalar] != nil {
                flushWord()
                han.append(Character(scalar))
                continue
            }
            flushHan()
            if let folded = fold(scalar) {
                word.append(contentsOf: folded)
                continue
            }
            switch scalar {
            case "'", "\u{2019}", "\u{00AD}", "\u{200B}", "\u{200C}", "\u{200D}":
                continue // I'm, soft hyphen and zero-width marks join a word
            case "%", "\u{FF05}":
                flushWord(); tokens.append(.percentSign)
            case "+", "\u{FF0B}":
                flushWord(); tokens.append(.plusSign)
            default:
                flushWord()
                if v >= 0x3400 && v <= 0x9FFF { tokens.append(.han(Character(scalar))) }
            }
        }
        flushWord(); flushDigits(); flushHan()
        return tokens
    }

    /// A digit run's value: parts after a separator of exactly three digits are thousands
    /// ("1,234", "1.234"); a part of one or two digits after the first is a decimal (rounded).
    static func value(parts: [Int], widths: [Int]) -> Int {
        var value = parts[0]
        for i in 1..<parts.count {
            if widths[i] == 3 {
                value = value > 1_000_000 ? value : value * 1000 + parts[i]
            } else {
                let scale = widths[i] == 1 ? 10 : 100
                if widths[i] <= 2 && parts[i] * 2 >= scale { value += 1 }
                break
            }
        }
        return value
    }

    /// Latin letters folded to lower-case ASCII (ß → ss); nil for anything else.
    @inline(__always)
    static func fold(_ s: Unicode.Scalar) -> String? {
        let v = s.value
        if v >= 0x61 && v <= 0x7A { return String(Character(s)) }
        if v >= 0x41 && v <= 0x5A { return String(Character(Unicode.Scalar(v + 32)!)) }
        switch s {
        case "á", "à", "â", "ä", "Á", "À", "Â", "Ä": return "a"
        case "é", "è", "ê", "ë", "É", "È", "Ê", "Ë": return "e"
        case "í", "ì", "î", "ï", "Í", "Ì", "Î", "Ï": return "i"
        case "ó", "ò", "ô", "ö", "Ó", "Ò", "Ô", "Ö": return "o"
        case "ú", "ù", "û", "ü", "Ú", "Ù", "Û", "Ü": return "u"
        case "ß", "ẞ": return "ss"
        default: return nil
        }
    }

    static let hanNumerals: [Unicode.Scalar: Int] = [
        "零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "兩": 2, "三": 3, "四": 4, "五": 5, "六": 6,
        "七": 7, "八": 8, "九": 9, "十": 10, "百": 100, "千": 1000,
    ]
}

// MARK: - Grammar

struct SpokenGroup {
    var value: Int
    /// Index of the first and one past the last token of the group.
    var start: Int
    var end: Int
}

/// What the words around a number say it is; a page word before it ("page 12") outweighs one
/// after it ("the 12th page", "12页"), so "chapter three page twelve" is page 12.
enum SpokenMark { case page, pageAfter, percent, relative, none }

enum Grammar {
    /// Digit runs and Chinese numeral runs: the same in every language.
    static func symbolGroups(_ tokens: [SpokenToken]) -> [SpokenGroup] {
        var groups: [SpokenGroup] = []
        for (i, token) in tokens.enumerated() {
            switch token {
            case .number(let n):
                groups.append(SpokenGroup(value: n, start: i, end: i + 1))
            case .hanNumber(let chars):
                // 百分之五十: the 百 of the percent prefix is not a number.
                if chars == ["百"], i + 2 < tokens.count, tokens[i + 1] == .han("分"), tokens[i + 2] == .han("之") { continue }
                if let n = chinese(chars) { groups.append(SpokenGroup(value: n, start: i, end: i + 1)) }
            default: break
            }
        }
        return groups
    }

    static func wordGroups(_ tokens: [SpokenToken], language: SpokenProgress.Language) -> [SpokenGroup] {
        switch language {
        case .en: return english(tokens)
        case .de: return german(tokens)
        case .ga: return irish(tokens)
        case .zh: return []
        }
    }

    // MARK: Marks

    static let pageWords: Set<String> = ["page", "pages", "p", "pg", "pp", "seite", "seiten", "s",
                                         "leathanach", "leathanaigh", "lch", "lth"]
    static let percentWords: Set<String> = ["percent", "prozent", "pct", "procent"]
    static let moreAfterWords: Set<String> = ["more", "mehr", "eile", "further"]
    static let moreBeforeWords: Set<String> = ["plus", "another", "weitere", "weiteren", "noch", "breis"]
    static let fillerWords: Set<String> = ["number", "no", "nummer", "uimhir", "on", "auf", "ar", "the", "der", "die", "an", "am", "a"]

    static func mark(of group: SpokenGroup, in tokens: [SpokenToken]) -> SpokenMark {
        // After the number: "percent", "per cent", "%", "Prozent", "faoin gcéad"; "more"; "页".
        var j = group.end
        var pageAfter = false
        var steps = 0
        while j < tokens.count && steps < 3 {
            switch tokens[j] {
            case .percentSign: return .percent
            case .word(let w):
                if percentWords.contains(w) { return .percent }
                if w == "per", j + 1 < tokens.count, tokens[j + 1] == .word("cent") { return .percent }
                if w == "faoin" || w == "sa", j + 1 < tokens.count,
                   case .word(let next) = tokens[j + 1], next.hasSuffix("cead") { return .percent }
                if moreAfterWords.contains(w) { return .relative }
                if pageWords.contains(w) || w == "th" || w == "st" || w == "nd" || w == "rd" { pageAfter = pageAfter || pageWords.contains(w) }
                else if !fillerWords.contains(w) { steps = 3 }
            case .han(let c):
                if c == "页" || c == "頁" { pageAfter = true }
                steps = 3
            default: steps = 3
            }
            j += 1; steps += 1
        }
        // Before the number: "page", "Seite", "leathanach", "第", "+", "plus", "又", "百分之".
        var i = group.start - 1
        steps = 0
        var pageBefore = false
        while i >= 0 && steps < 3 {
            switch tokens[i] {
            case .plusSign: return .relative
            case .word(let w):
                if moreBeforeWords.contains(w) { return .relative }
                if pageWords.contains(w) { pageBefore = true; steps = 3 }
                else if !fillerWords.contains(w) && !["im", "ich", "bin", "ta", "me", "mi", "i", "am", "at", "up", "to"].contains(w) { steps = 3 }
            case .han(let c):
                if c == "之", i >= 2, tokens[i - 1] == .han("分"), tokens[i - 2] == .hanNumber(["百"]) { return .percent }
                if c == "又" || c == "再" || c == "多" || c == "加" { return .relative }
                if c == "第" { pageBefore = true }
                if c != "了" && c != "读" && c != "讀" && c != "看" && c != "到" && c != "第" && c != "在" { steps = 3 }
            case .hanNumber(let chars) where chars == ["百"]:
                steps = 3
            default: steps = 3
            }
            i -= 1; steps += 1
        }
        return pageBefore ? .page : pageAfter ? .pageAfter : .none
    }

}
