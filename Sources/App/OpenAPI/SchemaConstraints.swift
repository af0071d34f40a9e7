import Foundation
import ShelfmarkCore

/// What a request type's fields must be, said in the OpenAPI document so that a request valid by the
/// schema is one the server accepts (the bounds are the ones `Check`, `Limits` and the services
/// enforce). `"."` holds keywords for the object itself (e.g. `required`).
protocol SchemaConstrained {
    static var schemaConstraints: [String: JSONValue] { get }
}

/// Schema fragments shared by the request types.
enum Rule {
    /// At least one character the server does not trim away: ECMAScript's `\s` misses U+0085 (NEL),
    /// which Foundation's `whitespacesAndNewlines` trims, so it is excluded by name; control
    /// characters are removed from text (`String.cleanedInput`), so they do not count either.
    static let notBlank = "[^\\s\\u0085\\u0000-\\u001f\\u007f]"
    /// Required text: not blank, at most `max` characters.
    static func text(_ max: Int) -> JSONValue { ["minLength": 1, "maxLength": .number(Double(max)), "pattern": .string(Rule.notBlank)] }
    /// Optional text: blank means absent.
    static func optionalText(_ max: Int) -> JSONValue { ["maxLength": .number(Double(max))] }
    static func range(_ r: ClosedRange<Int>) -> JSONValue { ["minimum": .number(Double(r.lowerBound)), "maximum": .number(Double(r.upperBound))] }
    static func items(_ item: JSONValue, max: Int) -> JSONValue {
        guard case .object(let pairs) = item else { return ["maxItems": .number(Double(max))] }
        return ["items": .object([("type", "string")] + pairs), "maxItems": .number(Double(max))]
    }
    /// An ISBN-10 or ISBN-13 with a correct check digit (hyphens and spaces allowed).
    static let isbn: JSONValue = ["format": "isbn", "minLength": 10, "maxLength": 40]
    static let optionalISBN: JSONValue = ["format": "isbn", "maxLength": 40]
    static let username: JSONValue = ["minLength": 1, "maxLength": 64, "pattern": "^[A-Za-z0-9._@-]+$"]
    /// A card number and a barcode as `Identifier` takes them (documented as printable ASCII, what scanners
    /// type; the server takes other letters too): no line break, tab or invisible character, a card no space.
    static let card: JSONValue = ["minLength": 1, "maxLength": 64, "pattern": "^[!-~]+$"]
    static let barcode: JSONValue = ["minLength": 1, "maxLength": 64, "pattern": "^[!-~]([ -~]*[!-~])?$"]
    static let password: JSONValue = ["minLength": 8, "maxLength": 1_000]
    static let coverURL: JSONValue = ["maxLength": .number(Double(CoverURL.maxLength)), "pattern": "^(https?://[A-Za-z0-9.-]+(:[0-9]{1,5})?(/[A-Za-z0-9._~%/-]*)?)?$"]
    static let email: JSONValue = ["format": "email", "maxLength": 254]
    static let rating: JSONValue = ["minimum": 0, "maximum": 5]
    /// A moment that has happened (a day's slack for a phone's clock), from 1900 on.
    /// (Its own format name, so the fuzzer makes moments that have happened: `date-time` is a due date there.)
    static let pastMoment: JSONValue = ["format": "past-date-time", "description": "An ISO 8601 date-time from 1900 to at most a day ahead of the server's clock."]
    static let futureDate: JSONValue = ["format": "date-time", "description": "In the future, at most 365 days ahead (a due date)."]
}

private func titleFields(requireTitle: Bool) -> [String: JSONValue] {
    var fields: [String: JSONValue] = [
        "title": Rule.text(500), "subtitle": Rule.optionalText(500), "authors": Rule.items(Rule.optionalText(300), max: 50),
        "isbn": Rule.optionalISBN, "publisher": Rule.optionalText(300),
        "publishedDate": ["maxLength": 40, "pattern": "[0-9]{3}", "description": "With a year: 1988, October 1988, 1988-10-01."],
        "pageCount": Rule.range(Limits.pageCount), "language": Rule.optionalText(35), "description": Rule.optionalText(20_000),
        "coverUrl": Rule.coverURL, "notes": Rule.optionalText(20_000), "rating": Rule.rating, "series": Rule.optionalText(300),
        "seriesNumber": Rule.optionalText(20), "readingLevel": Rule.optionalText(40),
        "categories": Rule.items(Rule.optionalText(100), max: 50), "location": Rule.optionalText(200),
        "callNumber": Rule.optionalText(CallNumber.maxLength),
        "moreSeries": ["maxItems": .number(Double(SeriesEntry.maxEntries))],
    ]
    // A title, or an ISBN the providers know (its title is looked up).
    if requireTitle { fields["."] = ["anyOf": [["required": ["title"]], ["required": ["isbn"]]]] }
    return fields
}

extension TitleCreate: SchemaConstrained {
    static var schemaConstraints: [String: JSONValue] {
        var fields = titleFields(requireTitle: true)
        fields["copies"] = Rule.range(0...Limits.copiesPerRequest)
        fields["requestedBy"] = Rule.optionalText(100)
        fields["priority"] = Rule.range(1...3)
        return fields
    }
}

/// The wishlist takes a title without copies (`POST …/wishlist`); decoded as `TitleCreate`.
struct WishlistInput: Codable, Sendable, SchemaConstrained {
    var title: String?
    var subtitle: String?
    var authors: [String]?
    var isbn: String?
    var publisher: String?
    var publishedDate: String?
    var pageCount: Int?
    var language: String?
    var description: String?
    var coverUrl: String?
    var notes: String?
    var favorite: Bool?
    var rating: Double?
    var series: String?
    var seriesNumber: String?
    var readingLevel: String?
    var categories: [String]?
    /// Who asked for it.
    var requestedBy: String?
    /// 1 low, 2 normal, 3 high.
    var priority: Int?

    static var schemaConstraints: [String: JSONValue] {
        var fields = titleFields(requireTitle: true)
        fields["location"] = nil
        fields["callNumber"] = nil
        fields["requestedBy"] = Rule.optionalText(100)
        fields["priority"] = Rule.range(1...3)
        fields["."] = ["anyOf": [["required": ["title"]], ["required": ["isbn"]]], "additionalProperties": false]
        return fields
    }
}

extension TitlePatch: SchemaConstrained {
    static var schemaConstraints: [String: JSONValue] {
        var fields = titleFields(requireTitle: false)
        fields["location"] = nil
        fields["totalCopies"] = ["minimum": 0, "maximum": .number(Double(Limits.copiesPerTitle)),
                                 "description": "At most 500 more or fewer than the title has now."]
        return fields
    }
}

/// Another series of a title (the items of `moreSeries`): each field as `TitleSeries.checked` bounds it.
extension SeriesEntry: SchemaConstrained {
    static var schemaConstraints: [String: JSONValue] {
        ["name": Rule.optionalText(SeriesEntry.maxName), "number": Rule.optionalText(SeriesEntry.maxNumber)]
    }
}

extension CopiesAdd: SchemaConstrained {
    static var schemaConstraints: [String: JSONValue] { ["count": Rule.range(1...Limits.copiesPerRequest), "location": Rule.optionalText(200)] }
}

extension AcquireInput: SchemaConstrained {
    static var schemaConstraints: [String: JSONValue] { ["copies": Rule.range(1...Limits.copiesPerRequest), "location": Rule.optionalText(200)] }
}

extension CopyPatch: SchemaConstrained {
    static var schemaConstraints: [String: JSONValue] {
        ["barcode": Rule.barcode, "location": Rule.optionalText(200), "condition": Rule.optionalText(200),
         // A copy goes on loan by a check-out, never by an edit.
         "status": ["enum": .array(CopyStatus.allCases.filter { $0 != .onLoan }.map { .string($0.rawValue) })]]
    }
}

extension CategoryInput: SchemaConstrained {
    static var schemaConstraints: [String: JSONValue] { ["name": Rule.text(100)] }
}

extension CategoryCallNumbersInput: SchemaConstrained {
    static var schemaConstraints: [String: JSONValue] { ["prefix": ["maxLength": 5, "pattern": "^[A-Za-z]*$"]] }
}

extension MemberInput: SchemaConstrained {
    static var schemaConstraints: [String: JSONValue] {
        ["cardId": Rule.card, "firstName": Rule.text(100), "lastName": Rule.optionalText(100), "grade": Rule.optionalText(50),
         "email": Rule.email, "notes": Rule.optionalText(10_000),
         "language": ["enum": .array(([""] + Lang.allCases.map(\.rawValue)).map { .string($0) })]]
    }
}

extension MemberPatch: SchemaConstrained {
    static var schemaConstraints: [String: JSONValue] { MemberInput.schemaConstraints }
}

extension CheckoutInput: SchemaConstrained {
    static var schemaConstraints: [String: JSONValue] {
        ["cardId": Rule.text(64), "copyBarcode": Rule.text(64), "isbn": Rule.isbn, "dueDate": Rule.futureDate,
         "days": Rule.range(LoanPolicy.loanPeriodRange),
         ".": ["anyOf": [["required": ["memberId"]], ["required": ["cardId"]]],
               "oneOf": [["required": ["titleId"]], ["required": ["copyBarcode"]], ["required": ["isbn"]]]]]
    }
}

extension HoldInput: SchemaConstrained {
    static var schemaConstraints: [String: JSONValue] {
        ["cardId": Rule.text(64), ".": ["anyOf": [["required": ["memberId"]], ["required": ["cardId"]]]]]
    }
}

extension ReturnInput: SchemaConstrained {
    static var schemaConstraints: [String: JSONValue] {
        ["copyBarcode": Rule.text(64), ".": ["oneOf": [["required": ["loanId"]], ["required": ["copyBarcode"]]]]]
    }
}

extension SetupInput: SchemaConstrained {
    static var schemaConstraints: [String: JSONValue] {
        ["username": Rule.username, "password": Rule.password, "displayName": Rule.optionalText(100), "libraryName": Rule.optionalText(200)]
    }
}

extension LoginInput: SchemaConstrained {
    static var schemaConstraints: [String: JSONValue] { ["username": ["maxLength": 200], "password": ["maxLength": 1_000]] }
}

extension PasswordReset: SchemaConstrained {
    static var schemaConstraints: [String: JSONValue] { ["password": Rule.password] }
}

extension StaffInput: SchemaConstrained {
    static var schemaConstraints: [String: JSONValue] {
        ["username": Rule.username, "password": Rule.password, "displayName": Rule.optionalText(100), ".": ["required": ["username", "role", "password"]]]
    }
}

extension TokenInput: SchemaConstrained {
    static var schemaConstraints: [String: JSONValue] { ["name": Rule.text(100), "expiresInDays": Rule.range(1...3650)] }
}

extension LibraryInput: SchemaConstrained {
    /// The name's bound, and the loan settings' bounds of the two it takes.
    static var schemaConstraints: [String: JSONValue] {
        LoanSettings.schemaConstraints.filter { ["loanPeriodDays", "maxRenewals"].contains($0.key) }.merging(["name": Rule.text(200)]) { $1 }
    }
}

extension FinePayment: SchemaConstrained {
    static var schemaConstraints: [String: JSONValue] { ["amount": Rule.range(1...FinePolicy.amountRange.upperBound)] }
}

extension FineWaiver: SchemaConstrained {
    static var schemaConstraints: [String: JSONValue] { ["amount": Rule.range(1...FinePolicy.amountRange.upperBound), "reason": Rule.text(200)] }
}

extension ISBNLookupInput: SchemaConstrained {
    static var schemaConstraints: [String: JSONValue] { ["isbn": Rule.isbn] }
}

/// The languages a message can be written in (the installation's).
private let languageCodes: JSONValue = ["enum": .array(Lang.allCases.map { .string($0.rawValue) })]
/// An address a message can be sent to (`MailAddress.isValid` takes these and more).
private let mailAddress: JSONValue = ["maxLength": 254, "pattern": "^[A-Za-z0-9._%+-]{1,64}@[A-Za-z0-9-]{1,63}(\\.[A-Za-z0-9-]{1,63})+$"]

extension MailServerPut: SchemaConstrained {
    static var schemaConstraints: [String: JSONValue] {
        ["host": ["minLength": 1, "maxLength": 253, "pattern": "^[A-Za-z0-9.:\\[\\]-]+$"], "port": Rule.range(1...65_535),
         "username": Rule.optionalText(320), "password": ["maxLength": 500], "senderAddress": mailAddress, "senderName": Rule.optionalText(100),
         // Without encryption no password is sent: a server of security `none` takes no user name or password.
         ".": ["anyOf": [["properties": ["security": ["enum": ["starttls", "tls"]]]],
                         ["properties": ["username": ["maxLength": 0], "password": ["maxLength": 0]]]]]]
    }
}

extension ReminderSettingsPatch: SchemaConstrained {
    static var schemaConstraints: [String: JSONValue] {
        ["hour": Rule.range(ReminderPolicy.hourRange), "beforeDays": Rule.range(0...ReminderPolicy.beforeRange.upperBound),
         "overdueDays": ["maxItems": 3, "uniqueItems": true, "items": ["type": "integer", "minimum": 1, "maximum": 365],
                         "description": "Days after the due day, kept in order; two on one day are refused."],
         "language": languageCodes, "contact": Rule.optionalText(300)]
    }
}

extension MailTemplateInput: SchemaConstrained {
    static var schemaConstraints: [String: JSONValue] {
        ["language": languageCodes, "subject": Rule.text(200), "body": Rule.text(5_000),
         // A reminder lists the loans: its text says where, with {loans}.
         ".": ["anyOf": [["properties": ["kind": ["enum": ["hold_ready", "test"]]]], ["properties": ["body": ["pattern": "\\{loans\\}"]]]]]]
    }
}

extension MailTemplateKey: SchemaConstrained {
    static var schemaConstraints: [String: JSONValue] { ["language": languageCodes] }
}

extension TestMailRequest: SchemaConstrained {
    static var schemaConstraints: [String: JSONValue] { ["to": mailAddress] }
}

// The sync push. A mutation the document allows is answered (applied or rejected, 200); the
// push itself is refused only outside these bounds.
extension SyncPush: SchemaConstrained {
    static var schemaConstraints: [String: JSONValue] {
        ["clientId": Rule.text(64), "mutations": ["minItems": 1, "maxItems": .number(Double(Sync.maxMutations))]]
    }
}

extension SyncMutation: SchemaConstrained {
    static var schemaConstraints: [String: JSONValue] {
        ["seq": Rule.range(1...Sync.maxSeq), "cardId": Rule.optionalText(64), "copyBarcode": Rule.optionalText(64),
         "page": Rule.range(Limits.pageCount), "percent": Rule.range(0...100), "at": Rule.pastMoment, "editedAt": Rule.pastMoment,
         "text": Rule.optionalText(Quotes.maxText), "quotePage": Rule.optionalText(Quotes.maxPage), "note": Rule.optionalText(Quotes.maxNote)]
    }
}

extension SyncTitleFields: SchemaConstrained {
    static var schemaConstraints: [String: JSONValue] {
        ["title": Rule.optionalText(500), "subtitle": Rule.optionalText(500), "authors": Rule.items(Rule.optionalText(300), max: 50),
         "publisher": Rule.optionalText(300), "publishedDate": Rule.optionalText(40), "pageCount": Rule.range(Limits.pageCount),
         "series": Rule.optionalText(300), "seriesNumber": Rule.optionalText(20), "readingLevel": Rule.optionalText(40)]
    }
}

extension MemberPINInput: SchemaConstrained {
    static var schemaConstraints: [String: JSONValue] {
        ["pin": ["minLength": 4, "maxLength": 12, "pattern": "^[0-9]{4,12}$"]]
    }
}

extension BulkChangeInput: SchemaConstrained {
    static var schemaConstraints: [String: JSONValue] {
        ["titleIds": ["minItems": 1, "maxItems": .number(Double(BulkChanges.maxTitles))],
         "value": Rule.optionalText(BulkAction.allCases.map(\.maxValueLength).max() ?? 300)]
    }
}
