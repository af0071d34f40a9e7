import Foundation

/// Every API path the server itself hands out — links from a page (downloads, barcode images), a
/// job's `Location`, the "add copies" link of a duplicate ISBN, a stored cover's address — built
/// here, as `WebRoute` builds the pages' links, so none is spelt out by hand
/// (`everyAPILinkLeadsToARegisteredRoute` checks each against the registered routes).
enum APILink: Sendable, Equatable {
    case export(library: UUID, format: String)
    case backup(library: UUID)
    case copyBarcode(library: UUID, copy: UUID)
    case memberBarcode(library: UUID, member: UUID)
    case titleCopies(library: UUID, title: UUID)
    case job(UUID)
    case cover(UUID)
    case membersExport(library: UUID)
    case members(library: UUID)
    case readingExport(library: UUID)
    /// A page photo's image, thumbnail or original.
    case photo(library: UUID, photo: UUID, part: String)

    static let root = "/api/v1"

    var path: String {
        func library(_ id: UUID) -> String { Self.root + "/libraries/" + id.uuidString }
        switch self {
        case .export(let l, let format):
            return library(l) + "/export?format=" + (format.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(["-"])) ?? "")
        case .backup(let l): return library(l) + "/backup"
        case .copyBarcode(let l, let copy): return library(l) + "/copies/" + copy.uuidString + "/barcode.svg"
        case .memberBarcode(let l, let member): return library(l) + "/members/" + member.uuidString + "/barcode.svg"
        case .titleCopies(let l, let title): return library(l) + "/titles/" + title.uuidString + "/copies"
        case .job(let id): return Self.root + "/jobs/" + id.uuidString
        case .cover(let id): return Self.root + "/covers/" + id.uuidString.lowercased()
        case .membersExport(let l): return library(l) + "/members/export"
        case .members(let l): return library(l) + "/members"
        case .readingExport(let l): return library(l) + "/reading/export"
        case .photo(let l, let photo, let part): return library(l) + "/photos/" + photo.uuidString + "/" + part
        }
    }
}
