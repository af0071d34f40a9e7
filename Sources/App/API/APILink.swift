import Foundation
import Vapor

/// The API's routes the server hands out links to — links from a page (downloads, barcode images), a
/// job's `Location`, the "add copies" link of a duplicate ISBN, a stored cover's address — typed as
/// `WebRoute` is: the same value registers the route (`api.on(.GET, .backup(library: .pattern), …)`,
/// through `APIRoutes.on(_:_:doc:)`) and builds its links (`path`), so a link cannot drift from its
/// route. `APILink.all` lists every case with sample values (`everyAPILinkIsRegisteredAndFollowsItsRoute`).
enum APILink: Sendable, Equatable {
    case export(library: UUID, format: String)
    case backup(library: UUID)
    case copyBarcode(library: UUID, copy: UUID, format: String = "svg")
    case memberBarcode(library: UUID, member: UUID, format: String = "svg")
    case titleCopies(library: UUID, title: UUID)
    case job(UUID)
    case cover(UUID)
    case membersExport(library: UUID)
    case members(library: UUID)
    case readingExport(library: UUID)
    /// A page photo's image, thumbnail or original.
    case photo(library: UUID, photo: UUID, part: String)
    /// The letters for members without email, a PDF.
    case reminderLetters(library: UUID)
    /// Label sheets and member cards: the PDF, or one page of it as a PNG preview.
    case labels(library: UUID, format: String)
    case memberCards(library: UUID, format: String)
    /// Shelf signs: the PDF or a page of it; one shelf's QR code as SVG or PNG.
    case shelfSigns(library: UUID, format: String)
    case shelfQR(library: UUID, shelf: UUID, format: String)
    /// The printed catalog and one book's page: the PDF or a page of it as a PNG.
    case printedCatalog(library: UUID, format: String)
    case bookSheet(library: UUID, title: UUID, format: String)
    /// A national library's MARC record of a title, as MARCXML.
    case titleMARC(library: UUID, title: UUID)
    /// A report as JSON (`format` nil), CSV or PDF.
    case report(library: UUID, kind: ReportKind, format: String?)
    /// Everything the library holds about a member, as JSON or PDF.
    case memberData(library: UUID, member: UUID, format: String)
    /// The backup a year-end rollover took first.
    case rolloverBackup(library: UUID, rollover: UUID)

    static let root = "/api/v1"

    /// The path after `/api/v1`, parameters named as registered.
    var segments: [WebRoute.Segment] {
        func library(_ id: UUID) -> [WebRoute.Segment] { [.fixed("libraries"), .parameter(name: "libraryID", value: id.uuidString)] }
        switch self {
        case .export(let l, _): return library(l) + [.fixed("export")]
        case .backup(let l): return library(l) + [.fixed("backup")]
        case .copyBarcode(let l, let copy, let format):
            return library(l) + [.fixed("copies"), .parameter(name: "copyID", value: copy.uuidString), .fixed("barcode.\(format)")]
        case .memberBarcode(let l, let member, let format):
            return library(l) + [.fixed("members"), .parameter(name: "memberID", value: member.uuidString), .fixed("barcode.\(format)")]
        case .titleCopies(let l, let title): return library(l) + [.fixed("titles"), .parameter(name: "titleID", value: title.uuidString), .fixed("copies")]
        case .job(let id): return [.fixed("jobs"), .parameter(name: "jobID", value: id.uuidString)]
        case .cover(let id): return [.fixed("covers"), .parameter(name: "coverID", value: id.uuidString.lowercased())]
        case .membersExport(let l): return library(l) + [.fixed("members"), .fixed("export")]
        case .members(let l): return library(l) + [.fixed("members")]
        case .readingExport(let l): return library(l) + [.fixed("reading"), .fixed("export")]
        case .photo(let l, let photo, let part): return library(l) + [.fixed("photos"), .parameter(name: "photoID", value: photo.uuidString), .fixed(part)]
        case .reminderLetters(let l): return library(l) + [.fixed("reminders"), .fixed("letters.pdf")]
        case .labels(let l, let format): return library(l) + [.fixed("print"), .fixed("labels.\(format)")]
        case .memberCards(let l, let format): return library(l) + [.fixed("print"), .fixed("cards.\(format)")]
        case .shelfSigns(let l, let format): return library(l) + [.fixed("print"), .fixed("shelves.\(format)")]
        case .shelfQR(let l, let shelf, let format): return library(l) + [.fixed("shelves"), .parameter(name: "shelfID", value: shelf.uuidString), .fixed("qr.\(format)")]
        case .printedCatalog(let l, let format): return library(l) + [.fixed("print"), .fixed("catalog.\(format)")]
        case .bookSheet(let l, let title, let format): return library(l) + [.fixed("titles"), .parameter(name: "titleID", value: title.uuidString), .fixed("book.\(format)")]
        case .titleMARC(let l, let title): return library(l) + [.fixed("titles"), .parameter(name: "titleID", value: title.uuidString), .fixed("marc")]
        case .report(let l, let kind, let format): return library(l) + [.fixed("reports"), .fixed(format.map { "\(kind.rawValue).\($0)" } ?? kind.rawValue)]
        case .memberData(let l, let member, let format):
            return library(l) + [.fixed("members"), .parameter(name: "memberID", value: member.uuidString), .fixed("data.\(format)")]
        case .rolloverBackup(let l, let rollover):
            return library(l) + [.fixed("rollovers"), .parameter(name: "rolloverID", value: rollover.uuidString), .fixed("backup")]
        }
    }

    /// The link's query (the export's format).
    var query: [(String, String)] {
        switch self {
        case .export(_, let format): [("format", format)]
        default: []
        }
    }

    var path: String { path(query: []) }

    /// The link with more query pairs (a PDF's options); values are percent-encoded.
    func path(query more: [(String, String)]) -> String {
        let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~"))
        let base = Self.root + "/" + segments.joinedPath
        let pairs = (query + more).map { "\($0.0)=\($0.1.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")" }
        return pairs.isEmpty ? base : base + "?" + pairs.joined(separator: "&")
    }

    /// The route to register (after `/api/v1`): parameters by name.
    var pattern: [PathComponent] { segments.pattern }

    /// Every case, with sample values, and the method its route answers (checked against the routes).
    static func all(library l: UUID, id x: UUID) -> [(link: APILink, method: HTTPMethod)] {
        // An exhaustive switch over a sample of each case: a new case does not compile until listed.
        let samples: [APILink] = [
            .export(library: l, format: "marc"), .backup(library: l), .copyBarcode(library: l, copy: x), .copyBarcode(library: l, copy: x, format: "png"),
            .memberBarcode(library: l, member: x), .memberBarcode(library: l, member: x, format: "png"), .titleCopies(library: l, title: x),
            .job(x), .cover(x), .membersExport(library: l), .members(library: l), .readingExport(library: l),
            .photo(library: l, photo: x, part: "image"), .photo(library: l, photo: x, part: "thumbnail"), .photo(library: l, photo: x, part: "original"),
            .reminderLetters(library: l), .labels(library: l, format: "pdf"), .labels(library: l, format: "png"),
            .memberCards(library: l, format: "pdf"), .memberCards(library: l, format: "png"),
            .shelfSigns(library: l, format: "pdf"), .shelfSigns(library: l, format: "png"),
            .shelfQR(library: l, shelf: x, format: "svg"), .shelfQR(library: l, shelf: x, format: "png"),
            .printedCatalog(library: l, format: "pdf"), .printedCatalog(library: l, format: "png"),
            .bookSheet(library: l, title: x, format: "pdf"), .bookSheet(library: l, title: x, format: "png"), .titleMARC(library: l, title: x),
            .rolloverBackup(library: l, rollover: x), .memberData(library: l, member: x, format: "json"), .memberData(library: l, member: x, format: "pdf"),
        ] + ReportKind.allCases.flatMap { kind in [nil, "csv", "pdf"].map { APILink.report(library: l, kind: kind, format: $0) } }
        return samples.map { link in
            switch link {
            case .export, .backup, .copyBarcode, .memberBarcode, .titleCopies, .job, .cover, .membersExport, .members, .readingExport, .photo,
                 .reminderLetters, .labels, .memberCards, .shelfSigns, .shelfQR, .printedCatalog, .bookSheet, .titleMARC, .report, .rolloverBackup, .memberData:
                (link, .GET)
            }
        }
    }
}

extension APIRoutes {
    /// Registers `link`'s route on this group (`lib.on(.GET, .backup(library: .pattern), doc: …)`): the
    /// group's own path (`libraries/:libraryID`) is the start of the link's, and the rest is registered.
    func on<R: AsyncResponseEncodable>(_ method: HTTPMethod, _ link: APILink, doc: RouteDoc, body: HTTPBodyStreamStrategy = .collect,
                                       use handler: @escaping @Sendable (Request) async throws -> R) {
        let full = link.pattern
        let own = Array(prefix.dropFirst(2))
        precondition(full.count >= own.count && zip(full, own).allSatisfy { $0.description == $1.description },
                     "\(link) is not under \(own)")
        on(method, Array(full.dropFirst(own.count)), doc: doc, body: body, use: handler)
    }

    func on<R: AsyncResponseEncodable>(_ method: HTTPMethod, _ path: [PathComponent], doc: RouteDoc, body: HTTPBodyStreamStrategy = .collect,
                                       use handler: @escaping @Sendable (Request) async throws -> R) {
        let route = builder.on(method, path, body: body, use: handler)
        route.userInfo[APIGuardMiddleware.authenticatedKey] = doc.authenticated
        if case .collect(let max?) = body { route.maxBody(Int(max.value)) }
        registry.add(.init(method: method, path: prefix + path, doc: doc))
    }
}
