import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A serial executor that runs its jobs on two threads in turn: job 1 on the first, job 2 on
/// the second, and so on, one job at a time. An actor that uses it resumes on the other thread
/// after every suspension, which a default actor does only by chance.
public final class AlternatingExecutor: SerialExecutor {
    /// Orders the jobs: one runs at a time, in the order they were enqueued.
    private let order = DispatchQueue(label: "AlternatingExecutor.order")
    private let threads = [PinnedThread(), PinnedThread()]
    private let turn = Mutex(0)

    public init() {}

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedSerialExecutor()
        let thread = threads[turn.withLock { turn in
            defer { turn += 1 }
            return turn % 2
        }]
        order.async { thread.run { job.runSynchronously(on: executor) } }
    }

    /// The two threads' ids.
    public var threadIDs: Set<UInt> { Set(threads.map(\.id)) }
}

/// One thread that runs the closures it is given, one at a time; `run` waits for each.
final class PinnedThread: Sendable {
    private let work = Mutex<(@Sendable () -> Void)?>(nil)
    private let start = DispatchSemaphore(value: 0)
    private let done = DispatchSemaphore(value: 0)
    private let thread = Mutex<UInt>(0)

    init() {
        let ready = DispatchSemaphore(value: 0)
        let started = Thread { [self] in
            thread.withLock { $0 = UInt(pthread_self()) }
            ready.signal()
            while true {
                start.wait()
                let body = work.withLock { work in
                    defer { work = nil }
                    return work
                }
                body?()
                done.signal()
            }
        }
        started.start()
        ready.wait()
    }

    /// The thread's `pthread_self()`.
    var id: UInt { thread.withLock { $0 } }

    /// Runs `body` on the thread and returns when it has finished.
    func run(_ body: @escaping @Sendable () -> Void) {
        work.withLock { $0 = body }
        start.signal()
        done.wait()
    }
}

/// The calling thread's `pthread_self()`.
public func currentThreadID() -> UInt { UInt(pthread_self()) }
