import Foundation
import ShelfmarkCore
import Vapor

/// Refusals in the reader's language: the domain errors by their case and values, the API's errors by
/// their stable `code`. The API keeps English messages with stable codes; a page shows these.
extension Strings {
    /// A domain error's sentence in this language.
    func message(_ error: some DomainError) -> String { error.message(self) }

    /// A form field's label in this language; the field's own name when it has none.
    /// "3½", "4", "½" — a rating as people say it.
    func stars(_ value: Double) -> String {
        let whole = Int(value.rounded(.down))
        let half = value - Double(whole) >= 0.5
        return (whole == 0 && half ? "" : t2(whole)) + (half ? "½" : "")
    }

    private func t2(_ n: Int) -> String { String(n) }

    func label(_ field: String) -> String {
        let key: L? = switch field {
        case "title", "Title": .title
        case "subtitle", "Subtitle": .subtitle
        case "authors": .authorsField
        case "isbn", "ISBN": .isbn
        case "publisher", "Publisher": .publisher
        case "publishedDate": .publishedDate
        case "pageCount": .pageCount
        case "description", "Description": .description
        case "coverUrl": .coverURL
        case "notes", "Notes": .notes
        case "copies", "count", "totalCopies": .copiesField
        case "location": .location
        case "series": .seriesField
        case "seriesNumber": .seriesNumberField
        case "readingLevel": .readingLevelField
        case "offsetX": .offsetAcross
        case "offsetY": .offsetDown
        case "start": .startAtLabel
        case "since": .copiesAddedSince
        case "barcode", "copyBarcode": .barcode
        case "cardId": .cardID
        case "firstName": .firstName
        case "lastName": .lastName
        case "grade": .grade
        case "email": .email
        case "username": .username
        case "password": .password
        case "displayName": .yourName
        case "libraryName": .libraryName
        case "loanPeriodDays": .loanPeriod
        case "maxRenewals": .maxRenewals
        case "dueDate": .dueDate
        case "days": .fieldDays
        case "name": .fieldName
        case "categories": .categories
        case "rating": .rating
        case "nextAccession": .fieldNextAccession
        case "requestedBy": .requestedBy
        case "timeZone": .timeZoneField
        case "priority": .priority
        case "page", "percent", "pagesRead", "label", "phrase": .pageField
        case "books": .goalBooks
        case "pages": .goalPages
        case "year": .yearCol
        case "review": .notes
        case "at", "startedAt", "finishedAt": .whenField
        case "folder": .backupFolderLabel
        case "hour": .backupHourLabel
        case "keepDaily": .keepDailyLabel
        case "keepWeekly": .keepWeeklyLabel
        case "keepMonthly": .keepMonthlyLabel
        default: nil
        }
        return key.map { self($0) } ?? field
    }

    func message(_ error: any Error) -> String {
        if let domain = error as? any DomainError { return domain.message(self) }
        if let decoding = error as? DecodingError, !StorageHealth.isDiskFull(error) { return JSONErrorMiddleware.decodingError(decoding, t: self).message }
        if let abort = error as? any AbortError, abort.status == .payloadTooLarge { return EdgeError.uploadTooLarge.message(self) }
        let app = JSONErrorMiddleware.appError(for: error)
        switch app.code {
        case "disk_full": return self(.diskFull)
        case "too_large": return self(.tooLarge)
        case "csrf": return self(.csrfText)
        case "bad_backup": return self(.errBadBackup)
        case "job_running": return self(.errJobRunning)
        case "not_found": return self(.notFoundText)
        case "forbidden": return self(.forbiddenText)
        case "job_interrupted": return self(.errJobInterrupted)
        case "internal": return self(.errInternal)
        default: return app.message
        }
    }

    /// A row of an import report in this language, from its code and values; the English reason when
    /// it has no code (a MARC record that cannot be read, a value refused by the catalog's checks).
    func message(_ note: ImportRowNote) -> String {
        let v = note.values ?? [:]
        switch note.code {
        case "missing":
            return format(.impMissing, v["column"] ?? "")
        case "invalid":
            let why: String? = switch v["why"] {
            case "not_whole_number": self(.impNotWholeNumber)
            case "more_than_total": format(.impMoreThanTotal, number(Int(v["total"] ?? "") ?? 0))
            case "isbn": ImportRowNote.isbnInvalid(v["isbn"]).map { message($0) }
            case "rating": self(.impRating)
            default: nil
            }
            guard let why else { return note.reason }
            return format(.impInvalid, v["column"] ?? "", v["value"] ?? "", why)
        case "field_count":
            return format(.impFieldCount, number(Int(v["found"] ?? "") ?? 0), number(Int(v["expected"] ?? "") ?? 0))
        case "not_isbn":
            guard let why = ImportRowNote.isbnInvalid(v["isbn"]) else { return note.reason }
            return format(.impNotISBN, v["value"] ?? "", message(why))
        case "providers_late": return format(.impProvidersLate, v["isbn"] ?? "")
        case "not_found": return format(.impNotFoundAtProviders, v["isbn"] ?? "")
        case "already_in_library": return format(.impAlreadyInLibrary, v["isbn"] ?? "")
        case "isbn_not_in_catalog": return format(.impISBNNotInCatalog, v["isbn"] ?? "")
        case "unreadable":
            let why: String? = switch v["why"] {
            case "leader": self(.impMARCLeader)
            case "directory": self(.impMARCDirectory)
            case "field_bounds": format(.impMARCFieldBounds, v["tag"] ?? "")
            case "charset": format(.impMARCCharset, v["set"] ?? "")
            case "not_marc21": self(.impNotMARC21)
            case "xml": format(.impXMLError, number(Int(v["line"] ?? "") ?? 0))
            default: nil
            }
            return why.map { format(.impUnreadable, $0) } ?? note.reason
        case "csv_quote":
            let line = Int(v["line"] ?? "") ?? 0, column = Int(v["column"] ?? "") ?? 0
            return v["kind"] == "stray" ? message(ExchangeError.csv(.strayQuote(line: line, column: column)))
                : message(ExchangeError.csv(.unterminatedQuote(line: line, column: column)))
        case "isbn_repaired": return format(.impISBNRepaired, v["value"] ?? "", v["isbn"] ?? "")
        case "asin_kept": return format(.impASINKept, v["asin"] ?? "")
        case "isbn_dropped":
            let why = ImportRowNote.isbnInvalid(v["isbn"]).map { message($0) } ?? ""
            return format(.impISBNDropped, v["value"] ?? "", why)
        case "card_taken": return format(.errDuplicateCard, v["card"] ?? "", v["name"] ?? "")
        case "card_spaces": return format(.errCardSpaces, v["card"] ?? "")
        case "input":
            guard let json = v["problem"], let problem = try? JSONDecoder().decode(InputProblem.self, from: Data(json.utf8)) else { return note.reason }
            return message(problem)
        default: return note.reason
        }
    }

    /// An import format's name in this language (the file formats' own names stay as they are).
    func name(_ format: ImportFormat) -> String {
        switch format {
        case .shelfmarkCatalog: self(.fmtShelfmarkCatalog)
        case .shelfmarkWishlist: self(.fmtShelfmarkWishlist)
        case .goodreads: self(.fmtGoodreads)
        case .libraryThing: self(.fmtLibraryThing)
        case .storyGraph: self(.fmtStoryGraph)
        case .libib: self(.fmtLibib)
        case .calibre: self(.fmtCalibre)
        case .generic: self(.fmtGeneric)
        case .isbnList: self(.fmtISBNList)
        case .marc: format.displayName
        case .marcXML: format.displayName
        case .libraryThingJSON: self(.fmtLibraryThingJSON)
        }
    }

    /// A report's format (stored as its English name) in this language.
    func formatName(_ stored: String) -> String {
        ImportFormat.allCases.first { $0.displayName == stored }.map { name($0) } ?? stored
    }
}
