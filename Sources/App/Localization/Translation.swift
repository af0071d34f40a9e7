import CTranslations
import Foundation
import ShelfmarkCore

/// One language of the interface, read from its gettext PO file once at start
/// (`Localization/Translations/<code>.po`, built into the binary). English is the source: its file
/// names every key (`msgctxt`), and the order in which a text's placeholders first appear in English
/// is the order of the arguments of `Strings.format`. A key a translation lacks, leaves empty or
/// marks fuzzy is shown in English.
final class Translation: Sendable {
    let code: String
    /// The language's name in itself, for the language menu.
    let name: String
    let locale: Locale
    /// The BCP 47 tag a speech recogniser is asked to listen for.
    let speechTag: String
    let plural: PluralRule
    let texts: [L: String]
    /// Texts with placeholders, each piece pointing at its argument (English order).
    let templates: [L: [Piece]]
    let counted: [P: [String]]
    /// Keys this file does not translate (shown in English).
    let untranslated: [String]

    enum Piece: Sendable { case text(String), argument(Int) }

    struct Problem: Error, CustomStringConvertible {
        var file: String
        var reason: String
        var description: String { "\(file): \(reason)" }
    }

    /// The argument names of each key with placeholders, in English order.
    let argumentNames: [L: [String]]

    init(po text: String, file: String, english: Translation?) throws {
        let po: POFile
        do { po = try POFile(text) } catch { throw Problem(file: file, reason: error.description) }
        guard let code = po.headers["X-Shelfmark-Code"], !code.isEmpty else { throw Problem(file: file, reason: "the header has no X-Shelfmark-Code") }
        self.code = code
        name = po.headers["X-Shelfmark-Name"].flatMap { $0.isEmpty ? nil : $0 } ?? code
        locale = Locale(identifier: po.headers["X-Shelfmark-Locale"].flatMap { $0.isEmpty ? nil : $0 } ?? code)
        speechTag = po.headers["X-Shelfmark-Speech"].flatMap { $0.isEmpty ? nil : $0 } ?? code
        do { plural = try PluralRule(po.headers["Plural-Forms"] ?? "nplurals=2; plural=(n != 1);") }
        catch { throw Problem(file: file, reason: "Plural-Forms: \(error.description)") }

        var singles: [String: String] = [:]
        var plurals: [String: [String]] = [:]
        for entry in po.entries {
            guard let key = entry.context else { throw Problem(file: file, reason: "line \(entry.line): an entry without msgctxt (the key)") }
            let usable = !entry.fuzzy && entry.strings.allSatisfy { !$0.isEmpty }
            if entry.idPlural != nil {
                if usable { plurals[key] = entry.strings }
            } else if usable {
                singles[key] = entry.strings[0]
            }
        }
        var texts: [L: String] = [:]
        var untranslated: [String] = []
        for key in L.allCases {
            if let text = singles[key.rawValue] { texts[key] = text }
            else if let english, let text = english.texts[key] { texts[key] = text; untranslated.append(key.rawValue) }
            else { throw Problem(file: file, reason: "the source language lacks the key \(key.rawValue)") }
        }
        var counted: [P: [String]] = [:]
        for key in P.allCases {
            if let forms = plurals[key.rawValue], forms.count == plural.count { counted[key] = forms }
            else if let english, let forms = english.counted[key] {
                // English's forms under English's rule: shown through `englishPlural` below.
                counted[key] = (0..<plural.count).map { _ in forms.last! }
                untranslated.append(key.rawValue)
            } else { throw Problem(file: file, reason: "the source language lacks the counted phrase \(key.rawValue) with \(plural.count) forms") }
        }
        // Argument order: the order placeholders first appear in the English text.
        var names: [L: [String]] = [:]
        var templates: [L: [Piece]] = [:]
        for (key, text) in texts {
            let template = MessageTemplate(text)
            let order = english?.argumentNames[key] ?? template.placeholders
            guard !template.placeholders.isEmpty || !order.isEmpty else { continue }
            names[key] = order
            templates[key] = template.pieces.map { piece in
                switch piece {
                case .text(let s): return .text(s)
                case .placeholder(let name): return order.firstIndex(of: name).map { .argument($0) } ?? .text("{\(name)}")
                }
            }
        }
        self.texts = texts
        self.templates = templates
        self.argumentNames = names
        self.counted = counted
        self.untranslated = untranslated
    }
}

/// The languages built into Shelfmark. Adding one is its PO file in `Localization/Translations/`
/// plus its line in `Sources/CTranslations/translations.c` (in the order of the language menu).
enum Translations {
    static let files: [(code: String, bytes: [UInt8])] = (0..<shelfmark_translation_count()).map { index in
        var length = 0
        let bytes = shelfmark_translation_bytes(index, &length)
        return (String(cString: shelfmark_translation_code(index)), Array(UnsafeBufferPointer(start: bytes, count: length)))
    }

    /// Every built-in language, English first. A broken built-in file stops the program at start
    /// with its file and line (the tests read every file, so it never reaches a release).
    static let shipped: [Lang] = {
        do {
            var english: Translation?
            return try files.map { code, bytes in
                let translation = try Translation(po: String(decoding: bytes, as: UTF8.self), file: "\(code).po", english: english)
                if english == nil { english = translation }
                return Lang(translation)
            }
        } catch {
            fatalError("Shelfmark's translation files are broken: \(error)")
        }
    }()

    /// A further language from a PO file (a translator's work in progress, a test's fixture),
    /// completed from English where it has no text.
    static func load(_ text: String, file: String) throws -> Lang {
        Lang(try Translation(po: text, file: file, english: Lang.en.translation))
    }
}
