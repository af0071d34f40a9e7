@testable import App
import Foundation
import ShelfmarkCore
import Testing

/// The interface's texts live in gettext PO files, one per language (`Localization/Translations`),
/// English the source. These tests read the files as built into the binary.
@Suite struct TranslationTests {
    static func file(_ code: String) throws -> POFile {
        let bytes = try #require(Translations.files.first { $0.code == code }?.bytes)
        return try POFile(String(decoding: bytes, as: UTF8.self))
    }

    /// A fifth language from a test fixture file: a pseudo-translation with three plural forms.
    static func fifthLanguage() throws -> Lang {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/qps-ploc.po")
        return try Translations.load(try String(contentsOf: url, encoding: .utf8), file: "qps-ploc.po")
    }

    static func placeholders(_ text: String) -> Set<String> { Set(MessageTemplate(text).placeholders) }

    @Test func theEnglishFileNamesExactlyTheKeysOfTheCode() throws {
        let english = try Self.file("en")
        let singles = english.entries.filter { $0.idPlural == nil }.compactMap(\.context)
        let counted = english.entries.filter { $0.idPlural != nil }.compactMap(\.context)
        #expect(Set(singles) == Set(L.allCases.map(\.rawValue)), "\(Set(singles).symmetricDifference(L.allCases.map(\.rawValue)))")
        #expect(Set(counted) == Set(P.allCases.map(\.rawValue)), "\(Set(counted).symmetricDifference(P.allCases.map(\.rawValue)))")
        #expect(singles.count == Set(singles).count, "a key is written twice in en.po")
        for entry in english.entries {
            #expect(entry.strings.first == entry.id, "en.po: \(entry.context ?? "") says something else than its source text")
        }
    }

    @Test func everyLanguageTranslatesEveryKeyWithTheSamePlaceholders() throws {
        let english = try Self.file("en")
        let source = Dictionary(english.entries.map { ($0.context ?? "", $0) }, uniquingKeysWith: { a, _ in a })
        #expect(Translations.files.count == Lang.allCases.count)
        for (code, _) in Translations.files {
            let po = try Self.file(code)
            let rule = try PluralRule(po.headers["Plural-Forms"] ?? "")
            #expect(po.headers["X-Shelfmark-Code"] == code)
            #expect(!(po.headers["X-Shelfmark-Name"] ?? "").isEmpty, "\(code) has no name for the language menu")
            var seen = Set<String>()
            for entry in po.entries {
                let key = entry.context ?? ""
                #expect(seen.insert(key).inserted, "\(code): \(key) is written twice")
                guard let original = source[key] else { Issue.record("\(code): \(key) is not a key of en.po"); continue }
                #expect(entry.id == original.id, "\(code): \(key) translates an older English text")
                #expect(!entry.fuzzy, "\(code): \(key) is marked fuzzy")
                #expect(entry.strings.allSatisfy { !$0.isEmpty }, "\(code): \(key) is not translated")
                let wanted = Self.placeholders(original.id).union(original.idPlural.map(Self.placeholders) ?? [])
                for text in entry.strings {
                    #expect(Self.placeholders(text) == wanted, "\(code): \(key) has the placeholders \(Self.placeholders(text).sorted()), English \(wanted.sorted())")
                }
                if original.idPlural != nil {
                    #expect(entry.strings.count == rule.count, "\(code): \(key) has \(entry.strings.count) forms, the language \(rule.count)")
                }
            }
            #expect(seen.count == source.count, "\(code) lacks \(Set(source.keys).subtracting(seen).sorted())")
            let lang = try #require(Lang(rawValue: code))
            #expect(lang.translation.untranslated.isEmpty, "\(code) falls back to English for \(lang.translation.untranslated)")
        }
    }

    @Test func argumentsFillNamedPlaceholdersWhereverTheTranslationPutsThem() {
        // German puts the date before the member; the arguments keep English's order.
        #expect(Strings(lang: .en).format(.checkedOut, "Momo", "Ada", "1 Dec") == "“Momo” is lent to Ada until 1 Dec.")
        #expect(Strings(lang: .de).format(.checkedOut, "Momo", "Ada", "1. Dez.") == "„Momo“ ist bis 1. Dez. an Ada ausgeliehen.")
        #expect(Strings(lang: .en).format(.classTotals, "1 Sept", "12") == "Books finished since 1 Sept: 12")
    }

    @Test func irishTakesFivePluralForms() {
        let ga = Strings(lang: .ga)
        #expect(ga(.copiesCount, 1) == "1 chóip")
        #expect(ga(.copiesCount, 2) == "2 chóip")
        #expect(ga(.copiesCount, 5) == "5 chóip")
        #expect(ga(.copiesCount, 8) == "8 gcóip")
        #expect(ga(.copiesCount, 11) == "11 cóip")
        #expect(Strings(lang: .zh)(.copiesCount, 1) == "1 本")
    }

    @Test func aFifthLanguageIsOneFile() throws {
        let fifth = try Self.fifthLanguage()
        #expect(fifth.rawValue == "qps-ploc")
        #expect(fifth.nativeName == "Ƥšéûđö")
        #expect(fifth.translation.untranslated.isEmpty)
        let t = Strings(lang: fifth)
        #expect(t(.navCatalog) == "⟦Çàţàļöĝ⟧")
        #expect(t.format(.checkedOut, "Momo", "Ada", "1 Dec") == "⟦“Momo” îš ļéñţ ţö Ada ûñţîļ 1 Dec.⟧")
        // Its own plural rule (three forms, as Russian or Polish have): 1, 2–4, 5+; 21 is "one" again.
        #expect(fifth.pluralForm(1) == 0 && fifth.pluralForm(3) == 1 && fifth.pluralForm(5) == 2 && fifth.pluralForm(21) == 0)
        #expect(Lang.negotiate(cookie: "qps-ploc", acceptLanguage: nil, among: Lang.allCases + [fifth]) == fifth)
        #expect(Lang.negotiate(cookie: "qps-ploc", acceptLanguage: nil) == .en)
    }

    @Test func aBrokenFileIsRefusedWithItsLine() {
        let broken = """
        msgid ""
        msgstr ""
        "X-Shelfmark-Code: xx\\n"
        "Plural-Forms: nplurals=2; plural=(n != 1);\\n"

        msgctxt "navCatalog"
        msgid "Catalog"
        msgstr "Katalog
        """
        #expect(throws: (any Error).self) { try Translations.load(broken, file: "xx.po") }
        do { _ = try Translations.load(broken, file: "xx.po") } catch { #expect("\(error)".contains("xx.po: line 8")) }
        // A plural rule naming a form the language does not have.
        #expect(throws: (any Error).self) {
            try Translations.load("msgid \"\"\nmsgstr \"\"\n\"X-Shelfmark-Code: xx\\n\"\n\"Plural-Forms: nplurals=2; plural=n;\\n\"\n", file: "xx.po")
        }
    }
}
