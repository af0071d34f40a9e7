import Fluent
import Foundation
import NIOPosix
import ShelfmarkCore
import ShelfmarkImaging

/// Page photos — uploaded, straightened by their corners, marked up, read by OCR into a quote,
/// deleted. The original is kept, so a new crop starts from it. Private to the reader.
enum PagePhotos {
    static let maxBytes = PageImage.maxBytes
    static let maxMarkupBytes = 400_000

    static func upload(_ data: Data, titleID: UUID, page: String?, userID: UUID, in scope: Scope,
                       pool: NIOThreadPool) async throws -> PhotoDTO {
        _ = try await Catalog.find(titleID, library: scope.libraryID, on: scope.db)
        let page = try Check.optional(page, field: "page", max: Quotes.maxPage)
        // Straightened at once where the page's edges are found against the desk; the reader adjusts
        // the corners or undoes the crop on the photo's page.
        let processed = try await process(data, straighten: .foundEdges, pool: pool)
        return try await scope.gate.transaction(on: scope.db) { db in
            let photo = PagePhoto()
            photo.id = UUID()
            photo.$library.id = scope.libraryID
            photo.userID = userID
            photo.titleID = titleID
            photo.page = page
            photo.original = data
            photo.originalWidth = processed.uprightWidth
            photo.originalHeight = processed.uprightHeight
            photo.apply(processed)
            photo.corners = processed.corners?.text
            photo.createdAt = scope.now
            photo.updatedAt = scope.now
            try await photo.create(on: db)
            return photo.dto
        }
    }

    /// Straightens the page by its four corners (from the original), or undoes the crop (nil). The
    /// markup is cleared: its strokes were drawn on the old page.
    static func setCorners(_ id: UUID, corners raw: [Double]?, userID: UUID, in scope: Scope, pool: NIOThreadPool) async throws -> PhotoDTO {
        let photo = try await find(id, userID: userID, library: scope.libraryID, on: scope.db)
        var corners: PageImage.Corners? = nil
        if let raw {
            guard let valid = PageImage.Corners(raw) else { throw ReadingError.cornersInvalid }
            corners = valid
        }
        let chosen = corners
        let processed = try await process(photo.original, straighten: chosen.map { .corners($0) } ?? .none, pool: pool)
        return try await scope.gate.transaction(on: scope.db) { db in
            photo.apply(processed)
            photo.corners = chosen?.text
            photo.markup = nil
            photo.updatedAt = scope.now
            try await photo.save(on: db)
            return photo.dto
        }
    }

    static func setMarkup(_ id: UUID, _ markup: PhotoMarkup, userID: UUID, in scope: Scope) async throws -> PhotoDTO {
        let checked = try check(markup)
        let json = String(decoding: try JSONEncoder().encode(checked), as: UTF8.self)
        guard json.utf8.count <= maxMarkupBytes else { throw InputProblem.tooLong(field: "markup", max: maxMarkupBytes) }
        return try await scope.gate.transaction(on: scope.db) { db in
            let photo = try await find(id, userID: userID, library: scope.libraryID, on: db)
            photo.markup = checked.strokes.isEmpty ? nil : json
            photo.updatedAt = scope.now
            try await photo.save(on: db)
            return photo.dto
        }
    }

    static func delete(_ id: UUID, userID: UUID, in scope: Scope) async throws {
        try await scope.gate.transaction(on: scope.db) { db in
            let photo = try await find(id, userID: userID, library: scope.libraryID, on: db)
            try await Quote.query(on: db).filter(\.$photoID == id).set(\.$photoID, to: nil).update()
            try await photo.delete(on: db)
        }
    }

    /// The reader's photos of a title, newest first, without their bytes.
    static func list(titleID: UUID, userID: UUID, libraryID: UUID, on db: any Database) async throws -> [PhotoDTO] {
        try await PagePhoto.query(on: db).filter(\.$library.$id == libraryID).filter(\.$userID == userID).filter(\.$titleID == titleID)
            .field(\.$id).field(\.$library.$id).field(\.$userID).field(\.$titleID).field(\.$page).field(\.$originalWidth)
            .field(\.$originalHeight).field(\.$corners).field(\.$width).field(\.$height).field(\.$markup).field(\.$createdAt)
            .field(\.$updatedAt)
            .sort(\.$createdAt, .descending).limit(200).all().map(\.dto)
    }

    /// The text on the (straightened) page, for a quote the reader then trims.
    static func text(_ id: UUID, userID: UUID, library: UUID, language: String, on db: any Database, pool: NIOThreadPool) async throws -> String {
        let photo = try await find(id, userID: userID, library: library, on: db)
        let image = photo.image
        return try await pool.runIfActive { try TextReader.pages(language: language).read(image).text }
    }

    static func find(_ id: UUID, userID: UUID, library: UUID, on db: any Database) async throws -> PagePhoto {
        guard let photo = try await PagePhoto.query(on: db).filter(\.$id == id).filter(\.$userID == userID)
            .filter(\.$library.$id == library).first() else { throw ReadingError.photoNotFound }
        return photo
    }

    private static func process(_ data: Data, straighten: PageImage.Straighten, pool: NIOThreadPool) async throws -> PageImage.Processed {
        do {
            return try await pool.runIfActive { try PageImage.process(data, straighten: straighten) }
        } catch let error as ImageError {
            throw ReadingError.photo(ImageProblem(error))
        }
    }

    private static func check(_ markup: PhotoMarkup) throws -> PhotoMarkup {
        guard markup.strokes.count <= PhotoMarkup.maxStrokes else {
            throw InputProblem.outOfRange(field: "markup", min: 0, max: PhotoMarkup.maxStrokes, got: markup.strokes.count)
        }
        var total = 0
        var markup = markup
        for i in markup.strokes.indices where markup.strokes[i].points.count % 2 == 1 {
            markup.strokes[i].points.removeLast()   // an odd coordinate out: the last point was cut short
        }
        for stroke in markup.strokes {
            total += stroke.points.count
            guard PhotoMarkup.tools.contains(stroke.tool),
                  stroke.color.count == 7, stroke.color.first == "#", stroke.color.dropFirst().allSatisfy(\.isHexDigit),
                  stroke.width.isFinite, (0.001...0.1).contains(stroke.width),
                  stroke.points.count >= 2, stroke.points.count <= PhotoMarkup.maxPoints,
                  stroke.points.allSatisfy({ $0.isFinite && $0 >= -0.05 && $0 <= 1.05 }) else {
                throw InputProblem.notANumber(field: "markup")
            }
        }
        guard total <= PhotoMarkup.maxPoints * 10 else {
            throw InputProblem.outOfRange(field: "markup", min: 0, max: PhotoMarkup.maxPoints * 10, got: total)
        }
        return markup
    }
}

extension PagePhoto {
    func apply(_ processed: PageImage.Processed) {
        image = processed.jpeg
        width = processed.width
        height = processed.height
        thumbnail = processed.thumbnail
    }

    var markupValue: PhotoMarkup {
        guard let markup, let value = try? JSONDecoder().decode(PhotoMarkup.self, from: Data(markup.utf8)) else { return PhotoMarkup(strokes: []) }
        return value
    }

    var dto: PhotoDTO {
        let lib = $library.id
        return PhotoDTO(id: id!, titleId: titleID, page: page, width: width, height: height, originalWidth: originalWidth,
                        originalHeight: originalHeight, corners: corners.flatMap { PageImage.Corners(text: $0)?.points }, markup: markupValue,
                        image: APILink.photo(library: lib, photo: id!, part: "image").path,
                        thumbnail: APILink.photo(library: lib, photo: id!, part: "thumbnail").path,
                        original: APILink.photo(library: lib, photo: id!, part: "original").path, createdAt: createdAt)
    }
}

/// Why a photo could not be used, said in the reader's language.
enum ImageProblem: Sendable, Equatable {
    case empty, tooLarge(maxMB: Int), notAnImage, damaged

    init(_ error: ImageError) {
        switch error {
        case .empty: self = .empty
        case .tooLarge(_, let limit): self = .tooLarge(maxMB: limit >> 20)
        case .notAnImage: self = .notAnImage
        case .truncated, .undecodable, .tooManyPixels: self = .damaged
        }
    }

    func message(_ t: Strings) -> String {
        switch self {
        case .empty: t(.errImageEmpty)
        case .tooLarge(let mb): t.format(.errImageTooLarge, t.number(mb))
        case .notAnImage: t(.errImageNotImage)
        case .damaged: t(.errImageDamaged)
        }
    }
}
