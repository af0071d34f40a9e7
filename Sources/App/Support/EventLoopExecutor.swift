import NIOCore

/// Runs a task's jobs on one NIO event loop: the loop its database connection reads and writes on.
///
/// A route handler runs on Swift's cooperative pool, and every statement it sends hops twice between
/// threads — to the connection's event loop to be written, and back to the pool when the answer is
/// read. A write of many small statements (a sync push of 100 mutations is about 1,200) spends more on
/// those hops than in the database. With the task preferring the connection's own loop, a statement is
/// written and its answer resumes the task on the same thread.
///
/// Only for work that waits on the database and computes little: whatever runs here holds up the
/// other connections of that event loop while it runs.
final class EventLoopExecutor: TaskExecutor {
    let loop: any EventLoop

    init(_ loop: any EventLoop) { self.loop = loop }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        loop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }

    /// `body`, with its task (and the tasks it awaits) preferring `loop`.
    static func run<T: Sendable>(on loop: any EventLoop, _ body: () async throws -> T) async throws -> T {
        try await withTaskExecutorPreference(EventLoopExecutor(loop)) { try await body() }
    }
}
