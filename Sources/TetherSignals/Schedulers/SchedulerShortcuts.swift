// Implicit member shortcuts, so that generic scheduler parameters accept `.main` and
// `.immediate`.

extension Scheduler where Self == MainScheduler {
    /// The main scheduler, for `deliver(on: .main)`.
    ///
    /// ```swift
    /// signal.deliver(on: .main)
    /// ```
    public static var main: MainScheduler { .shared }
}

extension Scheduler where Self == ImmediateScheduler {
    /// The immediate scheduler, for `subscribe(on: .immediate)` and the like.
    ///
    /// ```swift
    /// signal.deliver(on: .immediate)   // no change of thread
    /// ```
    public static var immediate: ImmediateScheduler { .shared }
}
