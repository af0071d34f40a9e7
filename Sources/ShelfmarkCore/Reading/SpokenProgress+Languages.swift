import Foundation

/// Each language's number words (Chinese, English, German, Irish) for `SpokenProgress`.
extension Grammar {
    // MARK: Chinese

    /// 一百五十七, 两百, 一千零五, 十五, 一百五 (= 150), 一五七 (digit by digit).
    static func chinese(_ chars: [Character]) -> Int? {
        let values = chars.map { Tokenizer.hanNumerals[$0.unicodeScalars.first!]! }
        if !values.contains(where: { $0 >= 10 }) {
            // Digit by digit: 一五七 → 157.
            var n = 0
            for v in values { n = n * 10 + v; if n > 1_000_000 { return nil } }
            return values.allSatisfy({ $0 == 0 }) ? nil : n
        }
        var total = 0, pending = 0, lastUnit = 0, zeroSinceUnit = false
        for v in values {
            switch v {
            case 0: zeroSinceUnit = true
            case 1...9:
                if pending != 0 { return nil }
                pending = v
            default:
                if lastUnit != 0 && v >= lastUnit { return nil } // 百 after 十 etc.
                total += (pending == 0 ? 1 : pending) * v
                pending = 0; lastUnit = v; zeroSinceUnit = false
            }
        }
        if pending != 0 {
            // 一百五 = 150, 一千五 = 1,500 (the unit below is implied); 一百零五 = 105.
            if !zeroSinceUnit && lastUnit >= 100 { total += pending * lastUnit / 10 } else { total += pending }
        }
        return total
    }

    // MARK: English

    static let englishUnits: [String: Int] = [
        "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
        "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7, "eighth": 8, "ninth": 9,
    ]
    static let englishTeens: [String: Int] = [
        "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16,
        "seventeen": 17, "eighteen": 18, "nineteen": 19,
        "tenth": 10, "eleventh": 11, "twelfth": 12, "thirteenth": 13, "fourteenth": 14, "fifteenth": 15,
        "sixteenth": 16, "seventeenth": 17, "eighteenth": 18, "nineteenth": 19,
    ]
    static let englishTens: [String: Int] = [
        "twenty": 20, "thirty": 30, "forty": 40, "fourty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90,
        "twentieth": 20, "thirtieth": 30, "fortieth": 40, "fiftieth": 50, "sixtieth": 60, "seventieth": 70,
        "eightieth": 80, "ninetieth": 90,
    ]

    /// "one hundred and fifty-seven", "one hundred five", "two thousand and twenty", "nineteen
    /// hundred", "a hundred", "hundredth". A unit after a closed unit starts a new number ("one two").
    static func english(_ tokens: [SpokenToken]) -> [SpokenGroup] {
        var groups: [SpokenGroup] = []
        var state = EnglishNumber()
        var start = -1
        var i = 0
        func close(at end: Int) {
            if start >= 0, let v = state.value { groups.append(SpokenGroup(value: v, start: start, end: end)) }
            state = EnglishNumber(); start = -1
        }
        while i < tokens.count {
            guard case .word(let w) = tokens[i] else { close(at: i); i += 1; continue }
            if w == "and", start >= 0, i + 1 < tokens.count, case .word(let next) = tokens[i + 1], isEnglishNumberWord(next) {
                i += 1; continue
            }
            guard isEnglishNumberWord(w) else { close(at: i); i += 1; continue }
            if !state.accept(w) {
                close(at: i)
                _ = state.accept(w)
            }
            if start < 0 { start = i }
            i += 1
        }
        close(at: tokens.count)
        return groups
    }

    static func isEnglishNumberWord(_ w: String) -> Bool {
        englishUnits[w] != nil || englishTeens[w] != nil || englishTens[w] != nil
            || w == "hundred" || w == "hundredth" || w == "thousand" || w == "thousandth"
    }

    struct EnglishNumber {
        var thousands = 0, hundreds = 0, below = 0
        var belowState = 0 // 0 nothing, 1 tens (open for a unit), 2 closed
        var hasHundred = false, hasThousand = false, any = false

        var value: Int? { any ? thousands + hundreds + below : nil }

        /// False when the word cannot continue this number (it starts the next one).
        mutating func accept(_ w: String) -> Bool {
            if let u = Grammar.englishUnits[w] {
                switch belowState {
                case 0: below = u; belowState = 2
                case 1: below += u; belowState = 2
                default: return false
                }
            } else if let t = Grammar.englishTeens[w] {
                guard belowState == 0 else { return false }
                below = t; belowState = 2
            } else if let t = Grammar.englishTens[w] {
                guard belowState == 0 else { return false }
                below = t; belowState = 1
            } else if w == "hundred" || w == "hundredth" {
                guard !hasHundred, hundreds == 0 else { return false }
                hundreds = (below == 0 ? 1 : below) * 100
                below = 0; belowState = 0; hasHundred = true
            } else if w == "thousand" || w == "thousandth" {
                guard !hasThousand else { return false }
                let n = hundreds + below
                thousands = (n == 0 ? 1 : n) * 1000
                hundreds = 0; below = 0; belowState = 0; hasHundred = false; hasThousand = true
            } else {
                return false
            }
            any = true
            return true
        }
    }

    // MARK: German

    static let germanUnits: [String: Int] = [
        "null": 0, "eins": 1, "ein": 1, "eine": 1, "zwei": 2, "zwo": 2, "drei": 3, "vier": 4, "funf": 5, "fuenf": 5,
        "sechs": 6, "sieben": 7, "acht": 8, "neun": 9, "zehn": 10, "elf": 11, "zwolf": 12, "zwoelf": 12,
        "dreizehn": 13, "vierzehn": 14, "funfzehn": 15, "fuenfzehn": 15, "sechzehn": 16, "siebzehn": 17,
        "achtzehn": 18, "neunzehn": 19,
    ]
    static let germanTens: [String: Int] = [
        "zwanzig": 20, "dreissig": 30, "dreiszig": 30, "vierzig": 40, "funfzig": 50, "fuenfzig": 50, "sechzig": 60,
        "siebzig": 70, "achtzig": 80, "neunzig": 90,
    ]
    static let germanOrdinalEndings = ["sten", "ster", "stes", "ste", "ten", "ter", "tes", "te", "en", "er", "es", "e", "st", "t"]

    /// "hundertsiebenundfünfzig", "Seite zweihundert", "hundert sieben und fünfzig" (words joined),
    /// "zwei­hundert" (soft hyphen), ordinals ("die hundertste Seite", "siebte").
    static func german(_ tokens: [SpokenToken]) -> [SpokenGroup] {
        var groups: [SpokenGroup] = []
        var i = 0
        while i < tokens.count {
            guard case .word = tokens[i] else { i += 1; continue }
            // The longest run of words from i whose concatenation is one number.
            var best: (value: Int, end: Int)? = nil
            var joined = ""
            var j = i
            while j < tokens.count && j - i < 6, case .word(let w) = tokens[j] {
                joined += w
                if let v = germanWord(joined) { best = (v, j + 1) }
                j += 1
            }
            if let best, !(best.end == i + 1 && tokens[i] == .word("und")) {
                groups.append(SpokenGroup(value: best.value, start: i, end: best.end))
                i = best.end
            } else {
                i += 1
            }
        }
        return groups
    }

    static func germanWord(_ w: String) -> Int? {
        if w.count > 60 { return nil }
        if let n = germanCardinal(Substring(w)) { return n }
        for ending in germanOrdinalEndings where w.hasSuffix(ending) && w.count > ending.count + 1 {
            var stem = String(w.dropLast(ending.count))
            if stem.hasSuffix("erst") { stem = String(stem.dropLast(4)) + "eins" }
            else if stem.hasSuffix("dritt") { stem = String(stem.dropLast(5)) + "drei" }
            else if stem.hasSuffix("siebt") { stem = String(stem.dropLast(5)) + "sieben" }
            else if stem.hasSuffix("sieb") { stem = String(stem.dropLast(4)) + "sieben" }
            if let n = germanCardinal(Substring(stem)), n > 0 { return n }
        }
        return nil
    }

    static func germanCardinal(_ w: Substring) -> Int? {
        if w.isEmpty { return nil }
        if let r = w.range(of: "tausend") {
            let left = w[w.startIndex..<r.lowerBound]
            var right = w[r.upperBound...]
            if right.hasPrefix("und") { right = right.dropFirst(3) }
            let l = left.isEmpty ? 1 : germanBelowThousand(left)
            guard let l, l >= 1, l <= 9 else { return nil }
            if right.isEmpty { return l * 1000 }
            guard let r = germanBelowThousand(right) else { return nil }
            return l * 1000 + r
        }
        return germanBelowThousand(w)
    }

    static func germanBelowThousand(_ w: Substring) -> Int? {
        if let r = w.range(of: "hundert") {
            let left = w[w.startIndex..<r.lowerBound]
            var right = w[r.upperBound...]
            if right.hasPrefix("und") { right = right.dropFirst(3) }
            let l = left.isEmpty ? 1 : germanUnits[String(left)]
            guard let l, l >= 1, l <= 9 else { return nil }
            if right.isEmpty { return l * 100 }
            guard let r = germanBelowHundred(right) else { return nil }
            return l * 100 + r
        }
        return germanBelowHundred(w)
    }

    static func germanBelowHundred(_ w: Substring) -> Int? {
        let s = String(w)
        if let n = germanUnits[s] { return n }
        if let n = germanTens[s] { return n }
        if let r = w.range(of: "und") {
            guard let u = germanUnits[String(w[w.startIndex..<r.lowerBound])], u >= 1, u <= 9,
                  let t = germanTens[String(w[r.upperBound...])] else { return nil }
            return t + u
        }
        return nil
    }

    // MARK: Irish

    static let irishUnits: [String: Int] = [
        "aon": 1, "do": 2, "dha": 2, "da": 2, "tri": 3, "ceathair": 4, "ceithre": 4, "cuig": 5, "se": 6,
        "seacht": 7, "ocht": 8, "naoi": 9,
    ]
    static let irishTens: [String: Int] = [
        "deich": 10, "fiche": 20, "triocha": 30, "daichead": 40, "caoga": 50, "seasca": 60, "seachto": 70,
        "ochto": 80, "nocha": 90,
    ]

    /// The word without its initial mutation: haon → aon, dhá → dá, chéad/gcéad → céad, mhíle → míle,
    /// dhéag → déag.
    static func irishBase(_ w: String) -> String {
        if w.hasPrefix("h"), irishUnits[String(w.dropFirst())] != nil { return String(w.dropFirst()) }
        if w.hasPrefix("gc") || w.hasPrefix("bh") || w.hasPrefix("dt") || w.hasPrefix("mb") || w.hasPrefix("nd") {
            let rest = String(w.dropFirst())
            if rest == "cead" || rest == "tri" { return rest }
        }
        if w.count > 2, w.dropFirst().hasPrefix("h") {
            let rest = String(w.first!) + String(w.dropFirst(2))
            if rest == "cead" || rest == "mile" || rest == "deag" || rest == "da" || rest == "do" { return rest }
        }
        return w
    }

    /// "céad caoga a seacht" (157), "dhá chéad" (200), "seacht gcéad", "míle naoi gcéad nócha a naoi",
    /// "a haon déag" (11), "fiche a haon" (21), "seacht is fiche" (27). "faoin gcéad" is a percent, not 100.
    static func irish(_ tokens: [SpokenToken]) -> [SpokenGroup] {
        var groups: [SpokenGroup] = []
        var total = 0, chunk = 0, pending = 0, start = -1, any = false, hasHundred = false, hasTens = false
        func close(at end: Int) {
            if any && start >= 0 { groups.append(SpokenGroup(value: total + chunk + pending, start: start, end: end)) }
            total = 0; chunk = 0; pending = 0; start = -1; any = false; hasHundred = false; hasTens = false
        }
        func isNumberWord(_ w: String) -> Bool {
            let b = irishBase(w)
            return irishUnits[b] != nil || irishTens[b] != nil || b == "cead" || b == "mile" || b == "deag"
        }
        var i = 0
        while i < tokens.count {
            guard case .word(let raw) = tokens[i] else { close(at: i); i += 1; continue }
            // faoin gcéad / sa chéad: per cent, ends the number before it.
            if (raw == "faoin" || raw == "sa"), i + 1 < tokens.count, case .word(let next) = tokens[i + 1], irishBase(next) == "cead" {
                close(at: i); i += 2; continue
            }
            if raw == "a" || raw == "is" || raw == "agus" {
                // "a" also comes before the first number ("a seacht"); joins only inside a number.
                if i + 1 < tokens.count, case .word(let next) = tokens[i + 1], isNumberWord(next) { i += 1; continue }
                close(at: i); i += 1; continue
            }
            let w = irishBase(raw)
            var continues = true
            if let u = irishUnits[w] {
                if pending != 0 { continues = false } else { pending = u }
            } else if w == "deag" {
                if pending >= 1 && pending <= 9 { pending += 10 } else { continues = false }
            } else if let t = irishTens[w] {
                if hasTens { continues = false } else { chunk += t + pending; pending = 0; hasTens = true }
            } else if w == "cead" {
                if hasHundred || hasTens || chunk != 0 { continues = false } else {
                    chunk += (pending == 0 ? 1 : pending) * 100; pending = 0; hasHundred = true
                }
            } else if w == "mile" {
                if total != 0 { continues = false } else {
                    let n = chunk + pending
                    total = (n == 0 ? 1 : n) * 1000; chunk = 0; pending = 0; hasHundred = false; hasTens = false
                }
            } else {
                close(at: i); i += 1; continue
            }
            if !continues {
                let started = any
                close(at: i)
                if !started { i += 1 } // a lone "déag": nothing to add it to
                continue // else read this word again as the start of the next number
            }
            any = true
            if start < 0 { start = i }
            i += 1
        }
        close(at: tokens.count)
        return groups
    }
}
