import Foundation

/// A school's roster as the roster sync reads it, from a OneRoster 1.1 or 1.2 CSV bundle
/// (`manifest.csv`, `users.csv`, `classes.csv`, `enrollments.csv`, and `roles.csv` in 1.2) or from a
/// plain CSV of students. Every person carries a stable id from the school's records (OneRoster's
/// `sourcedId`; the student number of a plain CSV): the sync matches members by it, never by name.
/// Unknown columns and files are ignored; a row that cannot be taken is a `Problem` with its file
/// and line, and its person is neither added nor taken for a leaver.
public struct RosterFile: Codable, Sendable, Equatable {
    public static let maxIDLength = 128
    /// People (all roles) in one roster: a large secondary school is a few thousand.
    public static let maxPeople = 20_000

    public enum Mode: String, Codable, Sendable, CaseIterable {
        /// The whole school: a member from an earlier sync who is not in it has left.
        case full
        /// Changes only: who is not in it stays as they are; `leaving` names who left.
        case delta
    }

    public struct Student: Codable, Sendable, Equatable {
        /// The stable id in the school's records.
        public var id: String
        /// The student number (a new member's card ID, when free).
        public var number: String?
        public var firstName: String
        public var lastName: String
        /// Their class (a homeroom's title, else their only class, else their grade as the SIS writes it).
        public var grade: String?
        public var email: String?
        public var guardianEmail: String?
        public var file: String
        public var line: Int

        public init(id: String, number: String?, firstName: String, lastName: String, grade: String?, email: String?, guardianEmail: String?,
                    file: String, line: Int) {
            (self.id, self.number, self.firstName, self.lastName, self.grade) = (id, number, firstName, lastName, grade)
            (self.email, self.guardianEmail, self.file, self.line) = (email, guardianEmail, file, line)
        }
    }

    public struct Teacher: Codable, Sendable, Equatable {
        public var id: String
        public var firstName: String
        public var lastName: String
        public var email: String?
        /// The classes they teach, by title.
        public var classes: [String]
    }

    /// A row not taken: where (file and line), why (a stable code with its values, and in English).
    public struct Problem: Codable, Sendable, Equatable {
        public var file: String
        public var line: Int
        /// `missing` (column), `too_long` (column, max), `invalid_email` (column, value),
        /// `duplicate_id` (id, first line), `field_count` (expected, found), `control` (column).
        public var code: String
        public var values: [String: String]
        /// The person's stable id, when the row had one: not a leaver, whatever else was wrong.
        public var id: String?

        public init(file: String, line: Int, code: String, values: [String: String], id: String?) {
            (self.file, self.line, self.code, self.values, self.id) = (file, line, code, values, id)
        }

        public var reason: String {
            switch code {
            case "missing": "“\(values["column"] ?? "")” is empty; it is required"
            case "too_long": "“\(values["column"] ?? "")” is longer than \(values["max"] ?? "") characters"
            case "invalid_email": "“\(values["value"] ?? "")” in “\(values["column"] ?? "")” is not an e-mail address"
            case "duplicate_id": "the id “\(values["id"] ?? "")” is already on line \(values["first"] ?? "")"
            case "field_count": "\(values["found"] ?? "") fields where the header has \(values["expected"] ?? "")"
            case "control": "“\(values["column"] ?? "")” holds a control character"
            default: code
            }
        }
    }

    /// `oneroster-1.1`, `oneroster-1.2` or `csv`.
    public var format: String
    public var mode: Mode
    public var students: [Student]
    public var teachers: [Teacher]
    /// Ids a delta marks as gone (`status` `tobedeleted`, or `enabledUser` false).
    public var leaving: [String]
    public var problems: [Problem]

    /// Every id the file names, taken or not: in a full sync, who is in none of them has left.
    public var namedIDs: Set<String> {
        Set(students.map(\.id)).union(problems.compactMap(\.id)).union(leaving)
    }
}

/// Why a roster cannot be read at all (a row's fault is a `RosterFile.Problem` instead).
public enum RosterError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A OneRoster bundle without this file.
    case missingFile(String)
    /// A file whose header lacks these columns.
    case missingColumns(file: String, columns: [String])
    /// More people than `RosterFile.maxPeople`.
    case tooManyPeople(max: Int)
    /// A CSV that cannot be read as CSV.
    case unreadable(file: String, detail: String)
    /// The manifest names a version this reader does not know.
    case unsupportedVersion(String)

    public var description: String {
        switch self {
        case .missingFile(let f): "The bundle has no \(f)."
        case .missingColumns(let f, let c): "\(f) lacks the column\(c.count == 1 ? "" : "s") \(c.map { "“\($0)”" }.joined(separator: ", "))."
        case .tooManyPeople(let max): "The roster names more than \(max) people."
        case .unreadable(let f, let d): "\(f) cannot be read: \(d)"
        case .unsupportedVersion(let v): "OneRoster version \(v) is not supported (1.1 and 1.2 are)."
        }
    }
}

/// A CSV file read into rows by column name, with its lines.
struct NamedRows {
    let file: String
    let header: [String: Int]
    /// The headers as the file writes them, by their lower-case form.
    let written: [String: String]
    let count: Int
    let rows: [CSVReader.Row]

    init(file: String, text: String) throws(RosterError) {
        var reader = CSVReader(text, separator: CSVReader.guessSeparator(String(text.prefix(4_096))))
        guard let head = reader.next() else {
            if let failure = reader.failure { throw .unreadable(file: file, detail: failure.description) }
            throw .unreadable(file: file, detail: "it is empty")
        }
        var header: [String: Int] = [:], written: [String: String] = [:]
        for (i, name) in head.fields.enumerated() {
            let key = name.trimmed.lowercased()
            if header[key] == nil { (header[key], written[key]) = (i, name.trimmed) }
        }
        var rows: [CSVReader.Row] = []
        while let row = reader.next() {
            if row.fields.allSatisfy({ $0.trimmed.isEmpty }) { continue }
            rows.append(row)
            if rows.count > RosterFile.maxPeople * 20 { throw .tooManyPeople(max: RosterFile.maxPeople) }
        }
        if let failure = reader.failure { throw .unreadable(file: file, detail: failure.description) }
        (self.file, self.header, self.written, self.count, self.rows) = (file, header, written, head.fields.count, rows)
    }

    func has(_ column: String) -> Bool { header[column.lowercased()] != nil }

    func require(_ columns: [String]) throws(RosterError) {
        let missing = columns.filter { !has($0) }
        if !missing.isEmpty { throw .missingColumns(file: file, columns: missing) }
    }

    func value(_ row: CSVReader.Row, _ column: String) -> String? {
        guard let i = header[column.lowercased()], i < row.fields.count else { return nil }
        let v = row.fields[i].trimmed
        return v.isEmpty ? nil : v
    }
}

public enum OneRoster {
    /// Whether the files (by name, any case, folders left out) look like a OneRoster bundle.
    public static func isBundle(_ names: [String]) -> Bool {
        names.contains { base($0) == "users.csv" } && names.contains { base($0) == "manifest.csv" || base($0) == "enrollments.csv" }
    }

    static func base(_ name: String) -> String {
        String(name.split(separator: "/").last ?? Substring(name)).lowercased()
    }

    /// Reads a bundle: `files` by name (as in the zip or folder; only the last path component counts).
    public static func read(_ files: [String: String]) throws(RosterError) -> RosterFile {
        var byName: [String: String] = [:]
        for (name, text) in files where !base(name).hasPrefix(".") { byName[base(name)] = text }
        var version = "1.1"
        var usersMode = RosterFile.Mode.full
        if let manifest = byName["manifest.csv"] {
            let rows = try NamedRows(file: "manifest.csv", text: manifest)
            for row in rows.rows {
                guard let key = rows.value(row, "propertyName")?.lowercased(), let value = rows.value(row, "value") else { continue }
                if key == "oneroster.version" { version = value }
                if key == "file.users" {
                    switch value.lowercased() {
                    case "delta": usersMode = .delta
                    case "absent": throw .missingFile("users.csv")
                    default: usersMode = .full
                    }
                }
            }
        }
        guard version.hasPrefix("1.1") || version.hasPrefix("1.2") else { throw .unsupportedVersion(version) }
        guard let usersText = byName["users.csv"] else { throw .missingFile("users.csv") }
        let users = try NamedRows(file: "users.csv", text: usersText)
        try users.require(["sourcedId", "givenName", "familyName"])

        // Roles: users.csv's `role` (1.1), else roles.csv's primary role (1.2), else their enrollments' role.
        var roleOf: [String: String] = [:]
        if let text = byName["roles.csv"] {
            let roles = try NamedRows(file: "roles.csv", text: text)
            try roles.require(["userSourcedId", "role"])
            for row in roles.rows where isCurrent(roles, row) {
                guard let user = roles.value(row, "userSourcedId"), let role = roles.value(row, "role")?.lowercased() else { continue }
                if roleOf[user] == nil || roles.value(row, "roleType")?.lowercased() == "primary" { roleOf[user] = role }
            }
        }
        // Classes and who is in them.
        struct ClassInfo { var title: String; var homeroom: Bool }
        var classes: [String: ClassInfo] = [:]
        if let text = byName["classes.csv"] {
            let rows = try NamedRows(file: "classes.csv", text: text)
            try rows.require(["sourcedId", "title"])
            for row in rows.rows where isCurrent(rows, row) {
                guard let id = rows.value(row, "sourcedId"), let title = rows.value(row, "title") else { continue }
                classes[id] = ClassInfo(title: String(title.prefix(50)), homeroom: rows.value(row, "classType")?.lowercased() == "homeroom")
            }
        }
        var classesOf: [String: [String]] = [:], taughtBy: [String: [String]] = [:]
        if let text = byName["enrollments.csv"] {
            let rows = try NamedRows(file: "enrollments.csv", text: text)
            try rows.require(["classSourcedId", "userSourcedId", "role"])
            for row in rows.rows where isCurrent(rows, row) {
                guard let cls = rows.value(row, "classSourcedId"), classes[cls] != nil, let user = rows.value(row, "userSourcedId") else { continue }
                let role = rows.value(row, "role")?.lowercased() ?? ""
                if role == "student" { classesOf[user, default: []].append(cls) }
                if role == "teacher" { taughtBy[user, default: []].append(cls) }
                if roleOf[user] == nil, role == "student" || role == "teacher" { roleOf[user] = role }
            }
        }

        var result = RosterFile(format: version.hasPrefix("1.2") ? "oneroster-1.2" : "oneroster-1.1", mode: usersMode, students: [], teachers: [],
                                leaving: [], problems: [])
        var guardianEmail: [String: String] = [:]
        var seen: [String: Int] = [:]
        struct Pending { var row: CSVReader.Row; var id: String; var agents: [String] }
        var pendingStudents: [Pending] = []
        for row in users.rows {
            if row.fields.count > users.count, row.fields[users.count...].contains(where: { !$0.trimmed.isEmpty }) {
                result.problems.append(.init(file: users.file, line: row.line, code: "field_count",
                                             values: ["expected": String(users.count), "found": String(row.fields.count)], id: users.value(row, "sourcedId")))
                continue
            }
            guard let id = users.value(row, "sourcedId") else {
                result.problems.append(.init(file: users.file, line: row.line, code: "missing", values: ["column": "sourcedId"], id: nil))
                continue
            }
            if let problem = RosterCheck.id(id, column: "sourcedId", file: users.file, line: row.line) {
                result.problems.append(problem)
                continue
            }
            if let first = seen[id] {
                result.problems.append(.init(file: users.file, line: row.line, code: "duplicate_id", values: ["id": id, "first": String(first)], id: id))
                continue
            }
            seen[id] = row.line
            let role = (users.value(row, "role") ?? roleOf[id] ?? "").lowercased()
            let status = users.value(row, "status")?.lowercased()
            let enabled = users.value(row, "enabledUser")?.lowercased() != "false"
            if status == "tobedeleted" || !enabled {
                if role == "student" || role.isEmpty { result.leaving.append(id) }
                continue
            }
            switch role {
            case "student":
                pendingStudents.append(Pending(row: row, id: id, agents: split(users.value(row, "agentSourcedIds"))))
            case "teacher":
                guard let first = users.value(row, "givenName") else { continue }
                let email = users.value(row, "email").flatMap { EmailAddress(parsing: $0)?.text }
                let taught = (taughtBy[id] ?? []).compactMap { classes[$0]?.title }
                result.teachers.append(.init(id: id, firstName: String(first.prefix(100)), lastName: String((users.value(row, "familyName") ?? "").prefix(100)),
                                             email: email, classes: taught))
            case "guardian", "parent", "relative":
                if let email = users.value(row, "email").flatMap({ EmailAddress(parsing: $0)?.text }) { guardianEmail[id] = email }
            default:
                continue
            }
        }
        guard pendingStudents.count <= RosterFile.maxPeople else { throw .tooManyPeople(max: RosterFile.maxPeople) }
        for p in pendingStudents {
            let grade: String? = {
                let mine = (classesOf[p.id] ?? []).compactMap { classes[$0] }
                if let homeroom = mine.first(where: \.homeroom) { return homeroom.title }
                if mine.count == 1 { return mine[0].title }
                return split(users.value(p.row, "grades")).first
            }()
            let fields = RosterCheck.Fields(id: p.id, number: users.value(p.row, "identifier"), first: users.value(p.row, "givenName"),
                                            last: users.value(p.row, "familyName"), grade: grade, email: users.value(p.row, "email"),
                                            guardianEmail: p.agents.lazy.compactMap { guardianEmail[$0] }.first)
            switch RosterCheck.student(fields, names: .oneRoster, file: users.file, line: p.row.line) {
            case .success(let student): result.students.append(student)
            case .failure(let box): result.problems.append(box.problem)
            }
        }
        result.problems.sort { ($0.file, $0.line) < ($1.file, $1.line) }
        return result
    }

    /// Whether a row is not marked for deletion (OneRoster's `status`; a bulk file leaves it empty).
    static func isCurrent(_ rows: NamedRows, _ row: CSVReader.Row) -> Bool {
        rows.value(row, "status")?.lowercased() != "tobedeleted"
    }

    static func split(_ list: String?) -> [String] {
        (list ?? "").split(separator: ",").map { String($0).trimmed }.filter { !$0.isEmpty }
    }
}

/// A plain CSV of students: the school's export, one student a row. Columns are found by their
/// names (`StudentListColumns`), or named by the library (`mapping`: field → header).
public enum StudentList {
    public enum Field: String, Codable, Sendable, CaseIterable {
        case number, firstName, lastName, name, grade, email, guardianEmail
    }

    static let aliases: [Field: [String]] = [
        .number: ["studentnumber", "studentno", "studentid", "pupilnumber", "pupilid", "upn", "schülernummer", "schuelernummer", "id", "cardid",
                  "card", "number", "uimhirdalta"],
        .firstName: ["firstname", "first", "givenname", "forename", "vorname", "ainmbaiste"],
        .lastName: ["lastname", "last", "surname", "familyname", "nachname", "sloinne"],
        .name: ["name", "fullname", "student", "pupil"],
        .grade: ["class", "grade", "form", "homeroom", "year", "yeargroup", "group", "klasse", "rang", "班级"],
        .email: ["email", "emailaddress", "mail", "studentemail", "ríomhphost", "riomhphost"],
        .guardianEmail: ["guardianemail", "parentemail", "guardian", "parent", "elternemail", "emailtuismitheora", "家长邮箱"],
    ]

    static func key(_ header: String) -> String {
        header.lowercased().folding(options: [.diacriticInsensitive], locale: nil).filter { $0.isLetter || $0.isNumber }
    }

    /// Reads a student list; `mapping` names a header per field (a field it leaves out is found by name).
    public static func read(_ text: String, mode: RosterFile.Mode, mapping: [Field: String] = [:], file: String = "students.csv") throws(RosterError)
        -> RosterFile {
        let rows = try NamedRows(file: file, text: text)
        var column: [Field: String] = [:]
        let headers = rows.header.keys
        for field in Field.allCases {
            if let named = mapping[field] {
                guard rows.has(named) else { throw .missingColumns(file: file, columns: [named]) }
                column[field] = named
            } else if let found = headers.sorted(by: { rows.header[$0]! < rows.header[$1]! })
                .first(where: { h in aliases[field]!.contains(where: { key($0) == key(h) }) && !column.values.contains(h) }) {
                column[field] = found
            }
        }
        var missing: [String] = []
        if column[.number] == nil { missing.append("Student number") }
        if column[.firstName] == nil && column[.name] == nil { missing.append("First name") }
        guard missing.isEmpty else { throw .missingColumns(file: file, columns: missing) }
        func shown(_ f: Field) -> String? { column[f].map { rows.written[$0] ?? $0 } }
        guard rows.rows.count <= RosterFile.maxPeople else { throw .tooManyPeople(max: RosterFile.maxPeople) }

        var result = RosterFile(format: "csv", mode: mode, students: [], teachers: [], leaving: [], problems: [])
        var seen: [String: Int] = [:]
        for row in rows.rows {
            func value(_ f: Field) -> String? { column[f].flatMap { rows.value(row, $0) } }
            if row.fields.count > rows.count, row.fields[rows.count...].contains(where: { !$0.trimmed.isEmpty }) {
                result.problems.append(.init(file: file, line: row.line, code: "field_count",
                                             values: ["expected": String(rows.count), "found": String(row.fields.count)], id: value(.number)))
                continue
            }
            guard let number = value(.number) else {
                result.problems.append(.init(file: file, line: row.line, code: "missing", values: ["column": shown(.number) ?? "Student number"], id: nil))
                continue
            }
            if let problem = RosterCheck.id(number, column: shown(.number)!, file: file, line: row.line) {
                result.problems.append(problem)
                continue
            }
            if let first = seen[number] {
                result.problems.append(.init(file: file, line: row.line, code: "duplicate_id", values: ["id": number, "first": String(first)], id: number))
                continue
            }
            seen[number] = row.line
            var first = value(.firstName), last = value(.lastName)
            if first == nil, let name = value(.name) {
                if name.contains(",") {
                    let parts = name.split(separator: ",", maxSplits: 1).map { String($0).trimmed }
                    (first, last) = (parts.count > 1 ? parts[1] : parts[0], parts.count > 1 ? parts[0] : last)
                } else {
                    let parts = name.split(separator: " ")
                    first = parts.count > 1 ? parts.dropLast().joined(separator: " ") : name
                    if parts.count > 1 { last = String(parts.last!) }
                }
            }
            let fields = RosterCheck.Fields(id: number, number: number, first: first, last: last, grade: value(.grade), email: value(.email),
                                            guardianEmail: value(.guardianEmail))
            let names = RosterCheck.Names(first: shown(.firstName) ?? shown(.name)!, last: shown(.lastName) ?? shown(.name) ?? "Last name",
                                          grade: shown(.grade) ?? "Class", email: shown(.email) ?? "Email",
                                          guardianEmail: shown(.guardianEmail) ?? "Guardian email")
            switch RosterCheck.student(fields, names: names, file: file, line: row.line) {
            case .success(let student): result.students.append(student)
            case .failure(let box): result.problems.append(box.problem)
            }
        }
        return result
    }

    /// The headers a file has, in order (for a page that asks which column is which).
    public static func headers(_ text: String) -> [String] {
        var reader = CSVReader(text, separator: CSVReader.guessSeparator(String(text.prefix(4_096))))
        return reader.next()?.fields.map(\.trimmed) ?? []
    }
}

/// The checks every roster row passes, with the member form's bounds.
enum RosterCheck {
    struct Fields { var id: String; var number: String?; var first: String?; var last: String?; var grade: String?; var email: String?; var guardianEmail: String? }
    /// The columns' names as the file calls them, for the problems.
    struct Names {
        var first: String, last: String, grade: String, email: String, guardianEmail: String
        static let oneRoster = Names(first: "givenName", last: "familyName", grade: "classes", email: "email", guardianEmail: "agentSourcedIds")
    }

    static func id(_ id: String, column: String, file: String, line: Int) -> RosterFile.Problem? {
        if id.count > RosterFile.maxIDLength {
            return .init(file: file, line: line, code: "too_long", values: ["column": column, "max": String(RosterFile.maxIDLength)], id: nil)
        }
        if id.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            return .init(file: file, line: line, code: "control", values: ["column": column], id: nil)
        }
        return nil
    }

    static func student(_ f: Fields, names: Names, file: String, line: Int) -> Result<RosterFile.Student, ProblemBox> {
        func problem(_ code: String, _ values: [String: String]) -> Result<RosterFile.Student, ProblemBox> {
            .failure(ProblemBox(.init(file: file, line: line, code: code, values: values, id: f.id)))
        }
        guard let first = f.first else { return problem("missing", ["column": names.first]) }
        for (value, column, max) in [(first, names.first, 100), (f.last ?? "", names.last, 100), (f.grade ?? "", names.grade, 50)] {
            if value.count > max { return problem("too_long", ["column": column, "max": String(max)]) }
            if value.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) { return problem("control", ["column": column]) }
        }
        var email: String?
        if let raw = f.email {
            guard let parsed = EmailAddress(parsing: raw) else { return problem("invalid_email", ["column": names.email, "value": String(raw.prefix(80))]) }
            email = parsed.text
        }
        var guardian: String?
        if let raw = f.guardianEmail {
            guard let parsed = EmailAddress(parsing: raw) else {
                return problem("invalid_email", ["column": names.guardianEmail, "value": String(raw.prefix(80))])
            }
            guardian = parsed.text
        }
        let number = f.number.flatMap { $0.count <= 64 && !$0.contains(where: \.isWhitespace) ? $0 : nil }
        return .success(.init(id: f.id, number: number, firstName: first, lastName: f.last ?? "", grade: f.grade, email: email, guardianEmail: guardian,
                              file: file, line: line))
    }

    struct ProblemBox: Error { let problem: RosterFile.Problem; init(_ p: RosterFile.Problem) { problem = p } }
}
