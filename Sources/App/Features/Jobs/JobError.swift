import ShelfmarkCore
import Vapor

enum JobError: DomainError, Equatable {
    case notFound
    case busy
    case interrupted

    var described: Described {
        switch self {
        case .notFound: .init(.notFound, "not_found") { $0(.errJobNotFound) }
        case .busy: .init(.conflict, "job_running") { $0(.errJobRunning) }
        case .interrupted: .init(.conflict, "job_interrupted") { $0(.errJobInterrupted) }
        }
    }
}
