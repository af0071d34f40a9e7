import Foundation

/// A class list or member list from a spreadsheet: one member per row. The columns are found
/// by their usual names in English, German and Irish, in any order; a single "Name" column is split
/// into first and last name.
public struct MemberListMapper: Sendable {
    public struct Record: Sendable, Equatable {
        public var line: Int
        public var cardID: String
        public var firstName: String
        public var lastName: String
        public var grade: String?
        public var email: String?
    }

    public enum RowError: Error, Equatable, Sendable, CustomStringConvertible {
        case missing(column: String)
        case cardHasSpaces(String)
        case wrongFieldCount(expected: Int, found: Int)

        public var description: String {
            switch self {
            case .missing(let column): "“\(column)” is empty; it is required"
            case .cardHasSpaces(let card): "the card ID “\(ImportMapper.RowError.quote(card))” has spaces"
            case .wrongFieldCount(let expected, let found): "\(found) fields where the header has \(expected)"
            }
        }
    }

    public enum HeaderError: Error, Equatable, Sendable, CustomStringConvertible {
        /// The header names no card ID column, or no name.
        case missingColumns([String])

        public var description: String {
            switch self {
            case .missingColumns(let c): "The header lacks the column\(c.count == 1 ? "" : "s") \(c.map { "“\($0)”" }.joined(separator: ", "))."
            }
        }
    }

    /// The header names each field may go by (lower case, spaces and punctuation ignored).
    static let aliases: [String: [String]] = [
        "card": ["cardid", "card", "cardnumber", "libraryCard", "librarycard", "studentid", "pupilid", "id", "barcode", "ausweisnummer",
                 "ausweis", "uimhircharta", "carta"],
        "first": ["firstname", "first", "givenname", "forename", "vorname", "ainmbaiste", "ainm"],
        "last": ["lastname", "last", "surname", "familyname", "nachname", "sloinne"],
        "name": ["name", "fullname", "student", "pupil"],
        "grade": ["class", "grade", "form", "homeroom", "year", "group", "klasse", "rang", "班级"],
        "email": ["email", "emailaddress", "mail", "ríomhphost", "riomhphost"],
    ]

    static func key(_ header: String) -> String {
        header.lowercased().folding(options: [.diacriticInsensitive], locale: nil).filter { $0.isLetter || $0.isNumber }
    }

    private let columns: [String: Int]
    public let headerCount: Int

    public init(header: [String]) throws(HeaderError) {
        var found: [String: Int] = [:]
        for (i, name) in header.enumerated() {
            let k = Self.key(name)
            for (field, names) in Self.aliases where found[field] == nil && names.contains(where: { Self.key($0) == k }) {
                found[field] = i
            }
        }
        var missing: [String] = []
        if found["card"] == nil { missing.append("Card ID") }
        if found["first"] == nil && found["name"] == nil { missing.append("First Name") }
        guard missing.isEmpty else { throw .missingColumns(missing) }
        columns = found
        headerCount = header.count
    }

    /// Whether a header looks like a member list (a card ID and a name column).
    public static func looksLikeMemberList(_ header: [String]) -> Bool { (try? MemberListMapper(header: header)) != nil }

    public func record(_ row: CSVReader.Row) throws(RowError) -> Record {
        if row.fields.count > headerCount, row.fields[headerCount...].contains(where: { !$0.trimmed.isEmpty }) {
            throw .wrongFieldCount(expected: headerCount, found: row.fields.count)
        }
        func value(_ field: String) -> String? {
            guard let i = columns[field], i < row.fields.count else { return nil }
            let v = row.fields[i].trimmed
            return v.isEmpty ? nil : v
        }
        guard let card = value("card") else { throw .missing(column: "Card ID") }
        guard !card.contains(where: \.isWhitespace) else { throw .cardHasSpaces(card) }
        var first = value("first"), last = value("last")
        if first == nil, let name = value("name") {
            // "Lovelace, Ada" or "Ada Lovelace".
            if name.contains(",") {
                let parts = name.split(separator: ",", maxSplits: 1).map { String($0).trimmed }
                (first, last) = (parts.count > 1 ? parts[1] : parts[0], parts.count > 1 ? parts[0] : last)
            } else {
                let parts = name.split(separator: " ")
                first = parts.dropLast().isEmpty ? name : parts.dropLast().joined(separator: " ")
                if parts.count > 1 { last = String(parts.last!) }
            }
        }
        guard let first, !first.isEmpty else { throw .missing(column: "First Name") }
        return Record(line: row.line, cardID: card, firstName: first, lastName: last ?? "", grade: value("grade"), email: value("email"))
    }

    /// The member list as this app writes it, and reads back.
    public static let exportColumns = ["Card ID", "First Name", "Last Name", "Class", "Email"]
}
