import ShelfmarkCore
import Vapor

enum JobError: DomainError, Equatable {
    case notFound
    case busy
    case interrupted

    var refusal: Refusal {
        switch self {
        case .notFound: .notFound
        case .busy, .interrupted: .conflict
        }
    }

    var code: String {
        switch self {
        case .notFound: "not_found"
        case .busy: "job_running"
        case .interrupted: "job_interrupted"
        }
    }

    func message(_ t: Strings) -> String {
        switch self {
        case .notFound: t(.errJobNotFound)
        case .busy: t(.errJobRunning)
        case .interrupted: t(.errJobInterrupted)
        }
    }
}
