@testable import ShelfmarkCore
import Testing

@Suite struct LocalizationTests {
    @Test func aPOFileReadsHeadersContextsPluralsAndContinuedStrings() throws {
        let po = try POFile("""
        # A comment
        msgid ""
        msgstr ""
        "Language: de\\n"
        "Plural-Forms: nplurals=2; plural=(n != 1);\\n"

        #. Shown on the tab bar
        #: Sources/App/Views/Layout.swift
        msgctxt "navCatalog"
        msgid "Catalog"
        msgstr "Katalog"

        #, fuzzy
        msgctxt "long"
        msgid ""
        "First line\\n"
        "with a \\"quote\\""
        msgstr "Erste Zeile\\nmit \\"Zitat\\""

        msgctxt "titles"
        msgid "{count} book"
        msgid_plural "{count} books"
        msgstr[0] "{count} Buch"
        msgstr[1] "{count} Bücher"

        #~ msgctxt "gone"
        #~ msgid "Old"
        #~ msgstr "Alt"
        """)
        #expect(po.headers["Language"] == "de")
        #expect(po.entries.count == 3)
        #expect(po.entries[0] == POFile.Entry(context: "navCatalog", id: "Catalog", idPlural: nil, strings: ["Katalog"], fuzzy: false, line: 9))
        #expect(po.entries[1].id == "First line\nwith a \"quote\"" && po.entries[1].fuzzy)
        #expect(po.entries[2].strings == ["{count} Buch", "{count} Bücher"])
    }

    @Test func brokenFilesNameTheLine() {
        #expect(throws: POFile.Problem(line: 2, reason: "a string must be in double quotes")) { try POFile("msgid \"a\"\nmsgstr b") }
        #expect(throws: POFile.Problem(line: 1, reason: "unknown keyword msgfoo")) { try POFile("msgfoo \"a\"") }
        #expect(throws: POFile.Problem(line: 1, reason: "plural forms are not numbered 0, 1, 2, … without gaps")) {
            try POFile("msgid \"a\"\nmsgid_plural \"b\"\nmsgstr[0] \"x\"\nmsgstr[2] \"y\"")
        }
    }

    @Test func pluralRulesOfEnglishIrishChineseAndPolish() throws {
        let english = try PluralRule("nplurals=2; plural=(n != 1);")
        #expect([0, 1, 2].map(english.form) == [1, 0, 1])
        let irish = try PluralRule("nplurals=5; plural=(n==1 ? 0 : n==2 ? 1 : (n>=3 && n<=6) ? 2 : (n>=7 && n<=10) ? 3 : 4);")
        #expect([1, 2, 3, 6, 7, 10, 11, 0].map(irish.form) == [0, 1, 2, 2, 3, 3, 4, 4])
        let chinese = try PluralRule("nplurals=1; plural=0;")
        #expect(chinese.form(5) == 0)
        let polish = try PluralRule("nplurals=3; plural=(n==1 ? 0 : n%10>=2 && n%10<=4 && (n%100<10 || n%100>=20) ? 1 : 2);")
        #expect([1, 2, 4, 5, 12, 22, 25].map(polish.form) == [0, 1, 1, 2, 2, 1, 2])
        #expect(throws: PluralRule.Problem.self) { try PluralRule("nplurals=2; plural=(n != ;") }
        #expect(throws: PluralRule.Problem.self) { try PluralRule("nplurals=2; plural=n;") }
        #expect(throws: PluralRule.Problem.self) { try PluralRule("nplurals=0; plural=0;") }
    }

    @Test func templatesNamePlaceholdersAndLeaveOtherBracesAsText() {
        let t = MessageTemplate("“{title}” is lent to {member} until {date}; {not a placeholder} {title}")
        #expect(t.placeholders == ["title", "member", "date"])
        #expect(t.render(["title": "Momo", "member": "Ada", "date": "1 Dec"]) == "“Momo” is lent to Ada until 1 Dec; {not a placeholder} Momo")
    }
}
