import Foundation
import ShelfmarkCore
import Vapor

/// A language of the web app: English, German, Irish, Simplified Chinese built in
/// (`Translations`), and any further one an application is given (`Application.languages`).
struct Lang: Hashable, Sendable, CustomStringConvertible {
    let translation: Translation

    init(_ translation: Translation) { self.translation = translation }

    var rawValue: String { translation.code }
    var description: String { rawValue }
    var nativeName: String { translation.name }
    var locale: Locale { translation.locale }
    /// The BCP 47 tag a speech recogniser is asked to listen for.
    var speechTag: String { translation.speechTag }

    static func == (a: Lang, b: Lang) -> Bool { a.rawValue == b.rawValue }
    func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }

    static let en = Translations.shipped[0]
    static let de = Translations.shipped[1]
    static let ga = Translations.shipped[2]
    static let zh = Translations.shipped[3]

    /// The built-in languages, in the language menu's order.
    static var allCases: [Lang] { Translations.shipped }

    init?(rawValue: String) {
        guard let lang = Translations.shipped.first(where: { $0.rawValue == rawValue }) else { return nil }
        self = lang
    }

    static let cookieName = "shelfmark_lang"

    /// The user's choice (cookie), else the browser's first supported `Accept-Language`, else English.
    static func negotiate(cookie: String?, acceptLanguage: String?, among languages: [Lang] = Lang.allCases) -> Lang {
        if let cookie, let lang = languages.first(where: { $0.rawValue == cookie }) { return lang }
        // Spelled out with its types: as one chain of closures over tuples this took the compiler 12 s.
        struct Ranked { var tag: String; var q: Double; var index: Int }
        var ranked: [Ranked] = []
        for (index, part) in (acceptLanguage ?? "").split(separator: ",").enumerated() {
            let pieces: [String] = part.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            var q = 1.0
            if let weight = pieces.dropFirst().first(where: { $0.hasPrefix("q=") }), let value = Double(weight.dropFirst(2)) { q = value }
            ranked.append(Ranked(tag: pieces.first?.lowercased() ?? "", q: q, index: index))
        }
        ranked.sort { (a: Ranked, b: Ranked) -> Bool in a.q != b.q ? a.q > b.q : a.index < b.index }
        for tag in ranked.map(\.tag) {
            // Exact tag first (zh-hans), then the primary language (zh-CN → zh-Hans, de-AT → de).
            if let lang = languages.first(where: { $0.rawValue.lowercased() == tag }) { return lang }
            let primary = tag.split(separator: "-").first.map(String.init) ?? tag
            if let lang = languages.first(where: { ($0.rawValue.split(separator: "-").first.map(String.init) ?? "").lowercased() == primary }) { return lang }
        }
        return languages.first ?? .en
    }

    /// The index of the plural form `n` takes in this language.
    func pluralForm(_ n: Int) -> Int { translation.plural.form(n) }
}

extension Application {
    private struct LanguagesKey: StorageKey { typealias Value = [Lang] }

    /// The languages this application offers: the built-in ones, and any a test or an operator adds.
    var languages: [Lang] {
        get { storage[LanguagesKey.self] ?? Lang.allCases }
        set { storage[LanguagesKey.self] = newValue }
    }
}

extension Request {
    var lang: Lang {
        Lang.negotiate(cookie: cookies[Lang.cookieName]?.string, acceptLanguage: headers.first(name: .acceptLanguage),
                       among: application.languages)
    }

    var t: Strings { Strings(lang: lang) }

    /// The strings of this request for a page of `library`: its dates in the library's time zone.
    func t(_ library: LibraryContext) -> Strings { Strings(lang: lang, timeZone: library.policy.timeZone) }
}
