import Foundation
import ShelfmarkCore
import Vapor

/// The languages of the web app (G5): English, German, Irish, Simplified Chinese.
enum Lang: String, CaseIterable, Sendable {
    case en
    case de
    case ga
    case zh = "zh-Hans"

    /// Each language's name in itself, for the language menu.
    var nativeName: String {
        switch self {
        case .en: "English"
        case .de: "Deutsch"
        case .ga: "Gaeilge"
        case .zh: "简体中文"
        }
    }

    var locale: Locale { Locale(identifier: self == .zh ? "zh-Hans-CN" : (self == .ga ? "ga-IE" : (self == .de ? "de-DE" : "en-IE"))) }

    static let cookieName = "shelfmark_lang"

    /// The user's choice (cookie), else the browser's first supported `Accept-Language`, else English.
    static func negotiate(cookie: String?, acceptLanguage: String?) -> Lang {
        if let cookie, let lang = Lang(rawValue: cookie) { return lang }
        let ranked = (acceptLanguage ?? "").split(separator: ",").enumerated().map { index, part -> (String, Double, Int) in
            let pieces = part.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            let q = pieces.dropFirst().first { $0.hasPrefix("q=") }.flatMap { Double($0.dropFirst(2)) } ?? 1
            return (pieces.first?.lowercased() ?? "", q, index)
        }.sorted { $0.1 != $1.1 ? $0.1 > $1.1 : $0.2 < $1.2 }
        for (tag, _, _) in ranked {
            if tag.hasPrefix("zh") { return .zh }
            if let lang = Lang(rawValue: String(tag.prefix(2))) { return lang }
        }
        return .en
    }

    /// CLDR plural category of `n` in this language.
    func pluralCategory(_ n: Int) -> PluralCategory {
        switch self {
        case .en, .de: return n == 1 ? .one : .other
        case .ga:
            switch n {
            case 1: return .one
            case 2: return .two
            case 3...6: return .few
            case 7...10: return .many
            default: return .other
            }
        case .zh: return .other
        }
    }
}

enum PluralCategory: Sendable { case one, two, few, many, other }

extension Request {
    var lang: Lang {
        Lang.negotiate(cookie: cookies[Lang.cookieName]?.string, acceptLanguage: headers.first(name: .acceptLanguage))
    }

    var t: Strings { Strings(lang: lang) }

    /// The strings of this request for a page of `library`: its dates in the library's time zone.
    func t(_ library: LibraryContext) -> Strings { Strings(lang: lang, timeZone: library.policy.timeZone) }
}

/// Looks up the interface text for one language. `t(.signIn)`, `t(.daysOverdue, 3)`,
/// `t.format(.copiesOf, 2, 3)`.
struct Strings: Sendable {
    let lang: Lang
    /// Dates are shown in this zone: the library's on its pages (its loans are due at the end of a
    /// day there), else the server's.
    var timeZone: TimeZone = .current

    init(lang: Lang, timeZone: TimeZone = .current) {
        self.lang = lang
        self.timeZone = timeZone
    }

    func callAsFunction(_ key: L) -> String {
        let row = L.table[key]!
        switch lang {
        case .en: return row.en
        case .de: return row.de
        case .ga: return row.ga
        case .zh: return row.zh
        }
    }

    /// A counted phrase; `%d` in the chosen form is replaced by the number.
    func callAsFunction(_ key: P, _ n: Int) -> String {
        let forms = P.table[key]![lang]!
        let category = lang.pluralCategory(n)
        let form = forms[category] ?? forms[.other]!
        return form.replacingOccurrences(of: "%d", with: number(n))
    }

    /// `%1`, `%2` … replaced by the arguments, in order.
    func format(_ key: L, _ args: String...) -> String {
        var text = self(key)
        for (i, arg) in args.enumerated() { text = text.replacingOccurrences(of: "%\(i + 1)", with: arg) }
        return text
    }

    /// A whole number as the language writes it. Below a thousand every one of the four writes the
    /// plain digits, so those skip the formatter (a list page formats hundreds of small counts).
    func number(_ n: Int) -> String { (-999...999).contains(n) ? String(n) : n.formatted(.number.locale(lang.locale)) }

    /// A date with its time of day, in the server's time zone.
    func dateTime(_ d: Date) -> String {
        var style = Date.FormatStyle(date: .abbreviated, time: .shortened).locale(lang.locale)
        style.timeZone = timeZone
        return d.formatted(style)
    }

    func date(_ d: Date) -> String {
        // A list shows the same few days again and again (due dates): each day is formatted once.
        let day = Int((d.timeIntervalSince1970 + Double(timeZone.secondsFromGMT(for: d))) / 86_400)
        let key = DateText.Key(lang: lang, zone: timeZone.identifier, day: day)
        if let text = DateText.cache.get(key) { return text }
        var style = Date.FormatStyle(date: .abbreviated, time: .omitted).locale(lang.locale)
        style.timeZone = timeZone
        let text = d.formatted(style)
        DateText.cache.set(key, text)
        return text
    }
}


/// Formatted days, shared by all requests (a bounded map behind a lock).
enum DateText {
    struct Key: Hashable { var lang: Lang; var zone: String; var day: Int }

    final class Cache: @unchecked Sendable {
        private let lock = NSLock()
        private var texts: [Key: String] = [:]

        func get(_ key: Key) -> String? { lock.withLock { texts[key] } }

        func set(_ key: Key, _ text: String) {
            lock.withLock {
                if texts.count >= 20_000 { texts.removeAll(keepingCapacity: true) }
                texts[key] = text
            }
        }
    }

    static let cache = Cache()
}
