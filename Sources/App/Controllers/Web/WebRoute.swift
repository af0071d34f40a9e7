import Foundation
import Vapor

/// The web app's pages and form actions, typed: the same value registers a route (`pattern`) and
/// builds its links (`path`), so a link cannot drift from its route. New pages add a case here.
enum WebRoute: Sendable, Equatable {
    case catalog(library: UUID)
    case title(library: UUID, title: UUID)
    case editTitle(library: UUID, title: UUID)
    case members(library: UUID)
    case member(library: UUID, member: UUID)
    case editMember(library: UUID, member: UUID)
    case deleteMember(library: UUID, member: UUID)
    case exchange(library: UUID)
    case job(library: UUID, job: UUID)
    case restore(library: UUID)
    case erase(library: UUID)
    case more(library: UUID)

    /// One piece of a path: fixed text, or a parameter (its name when registering, its value in a link).
    enum Segment: Sendable, Equatable {
        case fixed(String)
        case parameter(name: String, value: String)
    }

    var segments: [Segment] {
        switch self {
        case .catalog(let library): Self.library(library) + [.fixed("catalog")]
        case .title(let library, let title): Self.library(library) + [.fixed("titles"), .parameter(name: "titleID", value: title.uuidString)]
        case .editTitle(let library, let title): Self.title(library: library, title: title).segments + [.fixed("edit")]
        case .members(let library): Self.library(library) + [.fixed("members")]
        case .member(let library, let member): Self.library(library) + [.fixed("members"), .parameter(name: "memberID", value: member.uuidString)]
        case .editMember(let library, let member): Self.member(library: library, member: member).segments + [.fixed("edit")]
        case .deleteMember(let library, let member): Self.member(library: library, member: member).segments + [.fixed("delete")]
        case .exchange(let library): Self.library(library) + [.fixed("exchange")]
        case .job(let library, let job): Self.library(library) + [.fixed("exchange"), .fixed("jobs"), .parameter(name: "jobID", value: job.uuidString)]
        case .restore(let library): Self.library(library) + [.fixed("exchange"), .fixed("restore")]
        case .erase(let library): Self.library(library) + [.fixed("exchange"), .fixed("erase")]
        case .more(let library): Self.library(library) + [.fixed("more")]
        }
    }

    private static func library(_ id: UUID) -> [Segment] {
        [.fixed("libraries"), .parameter(name: "libraryID", value: id.uuidString)]
    }

    /// The link: `/libraries/…/exchange/jobs/…`.
    var path: String {
        "/" + segments.map { segment in
            switch segment {
            case .fixed(let text): text
            case .parameter(_, let value): value.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(["/"])) ?? value
            }
        }.joined(separator: "/")
    }

    /// The route to register: parameters by name (the values are ignored: write `.pattern` ids).
    var pattern: [PathComponent] {
        segments.map { segment in
            switch segment {
            case .fixed(let text): .constant(text)
            case .parameter(let name, _): .parameter(name)
            }
        }
    }
}

extension UUID {
    /// Stands for any id when a `WebRoute` is registered (`WebRoute.job(library: .pattern, job: .pattern)`).
    static let pattern = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
}

extension RoutesBuilder {
    @discardableResult
    func get<Response: AsyncResponseEncodable>(_ route: WebRoute, use handler: @escaping @Sendable (Request) async throws -> Response) -> Route {
        on(.GET, route.pattern, use: handler)
    }

    @discardableResult
    func post<Response: AsyncResponseEncodable>(_ route: WebRoute, use handler: @escaping @Sendable (Request) async throws -> Response) -> Route {
        on(.POST, route.pattern, use: handler)
    }
}
