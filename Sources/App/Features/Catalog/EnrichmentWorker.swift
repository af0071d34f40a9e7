import Foundation
import Vapor

/// Runs enrichment jobs in the background of `shelfmark serve`: wakes at once when this process
/// queues a job (`ring()`), else every few seconds (other instances on the same PostgreSQL may have
/// queued work, and failed jobs come due again).
enum EnrichmentWorker {
    static let name = "enrichment worker"

    static func loop(pollInterval: Duration = .seconds(5)) -> BackgroundLoop {
        let owner = "\(ProcessInfo.processInfo.hostName)#\(ProcessInfo.processInfo.processIdentifier)#\(UUID().uuidString.prefix(8))"
        return BackgroundLoop(name, longestWait: pollInterval) { app in
            try await Enrichment.drain(app: app, owner: owner, limit: 50)
            return pollInterval
        }
    }
}

extension Application {
    /// The enrichment worker of this process, when it runs one (`serve`).
    var enrichmentWorker: BackgroundLoop? { backgroundLoops[EnrichmentWorker.name] }
}
