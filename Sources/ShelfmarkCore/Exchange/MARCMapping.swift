import Foundation

/// A title as Shelfmark writes it to MARC.
public struct MARCExportTitle: Sendable, Equatable {
    public struct Copy: Sendable, Equatable {
        public var barcode: String
        public var location: String?
        public init(barcode: String, location: String?) {
            self.barcode = barcode
            self.location = location
        }
    }

    public var controlNumber: String
    public var isbn13: String?
    public var title: String
    public var subtitle: String?
    public var authors: [String] = []
    public var publisher: String?
    public var publishedDate: String?
    public var pageCount: Int?
    public var language: String?
    public var description: String?
    public var notes: String?
    public var categories: [String] = []
    public var series: String?
    public var seriesNumber: String?
    /// Its other series, each a 490 of its own after the first.
    public var moreSeries: [SeriesEntry] = []
    public var coverURL: String?
    public var copies: [Copy] = []
    /// Where it stands on the shelf: 852 $h of each copy.
    public var callNumber: String?
    /// A national library's record kept with the title: exported as it came, with this library's copies.
    public var kept: MARCRecord?

    public init(controlNumber: String, title: String) {
        self.controlNumber = controlNumber
        self.title = title
    }
}

/// Shelfmark's fields ↔ MARC 21 bibliographic fields: 020 ISBN, 041/008 language, 100/700 authors,
/// 245 title, 264/260 publication, 300 extent, 490 series, 500 notes, 520 summary, 650 subjects
/// (categories), 856 cover, 852 one per copy (barcode in $p, location in $c).
public enum MARCMapping {
    /// ISO 639-1 (what the providers give) ↔ MARC language codes.
    static let languages: [(String, String)] = [
        ("en", "eng"), ("de", "ger"), ("fr", "fre"), ("es", "spa"), ("it", "ita"), ("ga", "gle"), ("zh", "chi"), ("ja", "jpn"),
        ("pt", "por"), ("nl", "dut"), ("ru", "rus"), ("pl", "pol"), ("sv", "swe"), ("da", "dan"), ("no", "nor"), ("fi", "fin"),
        ("el", "gre"), ("tr", "tur"), ("ar", "ara"), ("he", "heb"), ("ko", "kor"), ("la", "lat"), ("cy", "wel"), ("cs", "cze"),
        ("hu", "hun"), ("uk", "ukr"), ("hi", "hin"), ("is", "ice"), ("gd", "gla"), ("ro", "rum"),
    ]

    static func marcLanguage(_ language: String?) -> String? {
        guard let l = language?.lowercased() else { return nil }
        if let pair = languages.first(where: { $0.0 == l }) { return pair.1 }
        if l.count == 3, l.allSatisfy(\.isLetter) { return l }
        return nil
    }

    static func isoLanguage(_ code: String) -> String {
        let c = code.lowercased()
        return languages.first { $0.1 == c }?.0 ?? c
    }

    // MARK: writing

    public static func record(_ t: MARCExportTitle) -> MARCRecord {
        if let kept = t.kept {
            // The catalogue's record as it came; its holdings (852) are another library's, ours replace them.
            return MARCRecord(leader: kept.leader, fields: kept.fields.filter { $0.tag != "852" } + holdings(t))
        }
        var fields: [MARCField] = [.control("001", t.controlNumber)]
        let marcLanguage = marcLanguage(t.language)
        // 008: date entered (blank), type of date s, the year, …, language at 35–37.
        let year = t.publishedDate.flatMap(firstYear) ?? "    "
        var f008 = Array(repeating: Character(" "), count: 40)
        f008.replaceSubrange(0..<6, with: Array("000000"))
        f008[6] = year == "    " ? "n" : "s"
        f008.replaceSubrange(7..<11, with: Array(year))
        f008.replaceSubrange(15..<18, with: Array("xx "))
        f008.replaceSubrange(35..<38, with: Array(marcLanguage ?? "und"))
        f008[39] = "d"
        fields.append(.control("008", String(f008)))
        if let isbn = t.isbn13 { fields.append(.data("020", " ", " ", [.init("a", isbn)])) }
        if let marcLanguage { fields.append(.data("041", "0", " ", [.init("a", marcLanguage)])) }
        if let first = t.authors.first { fields.append(personalName("100", first)) }
        var title: [MARCSubfield] = [.init("a", t.title)]
        if let subtitle = t.subtitle { title.append(.init("b", subtitle)) }
        fields.append(.data("245", t.authors.isEmpty ? "0" : "1", "0", title))
        if t.language != nil, marcLanguage == nil, let language = t.language {
            fields.append(.data("546", " ", " ", [.init("a", language)]))
        }
        var publication: [MARCSubfield] = []
        if let p = t.publisher { publication.append(.init("b", p)) }
        if let d = t.publishedDate { publication.append(.init("c", d)) }
        if !publication.isEmpty { fields.append(.data("264", " ", "1", publication)) }
        if let pages = t.pageCount { fields.append(.data("300", " ", " ", [.init("a", "\(pages) pages")])) }
        let series = (t.series.map { [SeriesEntry(name: $0, number: t.seriesNumber)] } ?? []) + t.moreSeries
        for entry in series {
            var s: [MARCSubfield] = [.init("a", entry.name)]
            if let n = entry.number { s.append(.init("v", n)) }
            fields.append(.data("490", "0", " ", s))
        }
        if let notes = t.notes { fields.append(.data("500", " ", " ", [.init("a", notes)])) }
        if let d = t.description { fields.append(.data("520", " ", " ", [.init("a", d)])) }
        for category in t.categories { fields.append(.data("650", " ", "4", [.init("a", category)])) }
        for other in t.authors.dropFirst() { fields.append(personalName("700", other)) }
        if let cover = t.coverURL { fields.append(.data("856", "4", "2", [.init("3", "Cover image"), .init("u", cover)])) }
        fields += holdings(t)
        let leader = MARCRecord.defaultLeader
        return MARCRecord(leader: leader, fields: fields)
    }

    /// One 852 per copy: location in $c, call number in $h, barcode in $p.
    static func holdings(_ t: MARCExportTitle) -> [MARCField] {
        t.copies.map { copy in
            var s: [MARCSubfield] = []
            if let location = copy.location { s.append(.init("c", location)) }
            if let callNumber = t.callNumber { s.append(.init("h", callNumber)) }
            s.append(.init("p", copy.barcode))
            return .data("852", " ", " ", s)
        }
    }

    /// The first four digits in a row (the year) in a date as people write it: "2019-05-01",
    /// "c1998", "May 2003". Scanned by hand: a regex literal is parsed anew on every call.
    static func firstYear(_ date: String) -> String? {
        let bytes = Array(date.utf8)
        var run = 0
        for (i, b) in bytes.enumerated() {
            guard (0x30...0x39).contains(b) else { run = 0; continue }
            run += 1
            if run == 4 { return String(decoding: bytes[(i - 3)...i], as: UTF8.self) }
        }
        return nil
    }

    /// "Michael Ende" → 100 1_ $a Ende, Michael; a single name → 100 0_ $a Homer.
    static func personalName(_ tag: String, _ name: String) -> MARCField {
        if name.contains(",") { return .data(tag, "1", " ", [.init("a", name)]) }
        let parts = name.split(separator: " ")
        guard parts.count > 1, let last = parts.last else { return .data(tag, "0", " ", [.init("a", name)]) }
        return .data(tag, "1", " ", [.init("a", "\(last), \(parts.dropLast().joined(separator: " "))")])
    }

    // MARK: reading

    /// A record as Shelfmark's import record; `line` is the record's number (binary) or line (XML).
    public static func importRecord(_ m: MARCRecord, line: Int) throws(MARCError) -> ImportRecord {
        guard m.leader.count == 24 else { throw .badLeader("it is \(m.leader.count) characters long, not 24") }
        let type = m.leader[m.leader.index(m.leader.startIndex, offsetBy: 6)]
        // a/t language material, c/d music scores, e/f maps, g/k visual, i/j sound, m files, o kits, p mixed, r objects
        guard "acdefgijkmoprt".contains(type) else { throw .notMARC21("leader type “\(type)” is not a bibliographic record") }
        var r = ImportRecord(line: line)
        guard let title = m.first("245", "a").map(clean), !title.isEmpty else { throw .notMARC21("it has no title (245 $a)") }
        var fullTitle = title
        for field in m.fields("245") {
            for part in field.all("n") + field.all("p") { fullTitle += ". " + clean(part) }
        }
        r.title = fullTitle
        r.subtitle = m.first("245", "b").map(clean).flatMap { $0.isEmpty ? nil : $0 }
        for tag in ["100", "110", "111", "700", "710", "711"] {
            for field in m.fields(tag) {
                guard let a = field["a"].map(clean), !a.isEmpty else { continue }
                let name = tag.hasSuffix("00") && field.indicator1 == "1" ? naturalOrder(a) : a
                if !r.authors.contains(name) { r.authors.append(name) }
            }
        }
        for field in m.fields("020") {
            for raw in field.all("a") {
                let candidate = raw.split(separator: " ").first.map(String.init) ?? raw
                if let isbn = try? ISBN(candidate) { r.isbn = isbn.isbn13; break }
            }
            if r.isbn != nil { break }
        }
        let publication = m.fields("264").first { $0.indicator2 == "1" } ?? m.fields("260").first ?? m.fields("264").first
        r.publisher = publication?["b"].map(clean).flatMap { $0.isEmpty ? nil : $0 }
        r.publishedDate = publication?["c"].map(cleanDate).flatMap { $0.isEmpty ? nil : $0 }
        let f008 = m.control("008").map(Array.init) ?? []
        if r.publishedDate == nil, f008.count >= 11 {
            let year = String(f008[7..<11])
            if year.allSatisfy(\.isNumber) { r.publishedDate = year }
        }
        if let extent = m.first("300", "a"), let match = extent.firstMatch(of: /(\d+)\s*(p\b|pages|S\.|Seiten|leaves)/) {
            r.pageCount = Int(match.output.1)
        }
        if let code = m.first("041", "a"), code.count >= 3 {
            r.language = isoLanguage(String(code.prefix(3)))
        } else if f008.count >= 38 {
            let code = String(f008[35..<38]).trimmingCharacters(in: .whitespaces)
            if code.count == 3, code.allSatisfy(\.isLetter), !["und", "zxx", "mul"].contains(code) { r.language = isoLanguage(code) }
        }
        if r.language == nil, let language = m.first("546", "a") { r.language = language }
        let notes = m.fields("500").compactMap { $0["a"] }
        r.notes = notes.isEmpty ? nil : notes.joined(separator: "\n")
        r.description = m.first("520", "a")
        for tag in ["650", "651", "655"] {
            for field in m.fields(tag) {
                guard let a = field["a"].map(clean), !a.isEmpty, !r.categories.contains(a) else { continue }
                r.categories.append(a)
            }
        }
        // Each series statement (490) is a series of the book, the first its own; without one, the added entries (830).
        var seen = Set<String>()
        let statements = m.fields("490").isEmpty ? m.fields("830") : m.fields("490")
        for field in statements {
            guard let name = field["a"].map(clean).map({ $0.trimmingCharacters(in: CharacterSet(charactersIn: " ;,")) }), !name.isEmpty,
                  seen.insert(name.lowercased()).inserted else { continue }
            let number = field["v"].map(clean).flatMap { $0.isEmpty ? nil : String($0.prefix(SeriesEntry.maxNumber)) }
            if r.series == nil {
                (r.series, r.seriesNumber) = (name, number)
            } else if r.moreSeries.count < SeriesEntry.maxEntries {
                r.moreSeries.append(SeriesEntry(name: String(name.prefix(SeriesEntry.maxName)), number: number))
            }
        }
        r.coverURL = m.fields("856").first { ($0["3"] ?? "").lowercased().contains("cover") }?["u"]
        let holdings = m.fields("852").count
        if holdings > 0 { r.totalCopies = holdings }
        // The call number: a holding's ($h, with $i), else a local one (099, 092), each as the library wrote it.
        let local = m.fields("852").first { $0["h"] != nil } ?? m.fields("099").first ?? m.fields("092").first
        if let local {
            let parts = (local.tag == "852" ? local.all("h") + local.all("i") : local.all("a") + local.all("b")).map(clean).filter { !$0.isEmpty }
            r.callNumber = CallNumber.normalised(parts.joined(separator: " "))
        }
        return r
    }

    /// "Ende, Michael," → "Michael Ende".
    static func naturalOrder(_ name: String) -> String {
        let parts = name.split(separator: ",", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
        return parts.count == 2 && !parts[1].isEmpty ? parts[1] + " " + parts[0] : name
    }

    /// ISBD punctuation at the end of a subfield: "Momo /" → "Momo"; "Ende, Michael," → "Ende, Michael".
    /// A final full stop goes unless it ends an initial or abbreviation ("J.R.R.", "Jr.").
    static func clean(_ s: String) -> String {
        var t = s.trimmingCharacters(in: .whitespacesAndNewlines)
        while let last = t.last, " /:;,=".contains(last) { t.removeLast() }
        if t.hasSuffix("."), !t.hasSuffix("..."), t.count > 2 {
            let beforeDot = t.dropLast()
            let lastWord = beforeDot.split(separator: " ").last ?? ""
            if lastWord.count > 2 || lastWord.contains(where: { !$0.isLetter }) { t.removeLast() }
        }
        return t.trimmingCharacters(in: .whitespaces)
    }

    /// "c1999." → "1999", "[2003]" → "2003", "©2010" → "2010".
    static func cleanDate(_ s: String) -> String {
        var t = clean(s)
        t = t.trimmingCharacters(in: CharacterSet(charactersIn: "[]©℗ "))
        if t.hasPrefix("c"), t.dropFirst().first?.isNumber == true { t.removeFirst() }
        if t.hasSuffix("]") { t.removeLast() }
        return t
    }
}
