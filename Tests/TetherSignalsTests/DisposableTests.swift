import Dispatch
import Testing
import TetherSignals
import TetherTestSupport

@Suite("Disposables")
struct DisposableTests {
    // MARK: ActionDisposable

    @Test func actionDisposableRunsOnce() {
        let runs = Counter()
        let disposable = ActionDisposable { runs.increment() }
        #expect(!disposable.isDisposed)
        disposable.dispose()
        disposable.dispose()
        #expect(runs.count == 1)
        #expect(disposable.isDisposed)
    }

    @Test func actionDisposableRunsOnceUnderConcurrentDispose() {
        let runs = Counter()
        let rounds = 200
        for _ in 0..<rounds {
            let disposable = ActionDisposable { runs.increment() }
            DispatchQueue.concurrentPerform(iterations: 16) { _ in disposable.dispose() }
            #expect(disposable.isDisposed)
        }
        #expect(runs.count == rounds)
    }

    @Test func actionDisposableReleasesItsActionAfterRunning() {
        let freed = Flag()
        var tracked: Tracked? = Tracked { freed.set() }
        let disposable = ActionDisposable { [tracked] in withExtendedLifetime(tracked) {} }
        tracked = nil
        #expect(!freed.isSet)
        disposable.dispose()
        #expect(freed.isSet)
    }

    @Test func emptyActionDisposableRecordsDisposal() {
        let disposable = ActionDisposable()
        #expect(!disposable.isDisposed)
        disposable.dispose()
        #expect(disposable.isDisposed)
    }

    // MARK: CompoundDisposable

    @Test func compoundDisposesChildrenInOrder() {
        let log = Recorder<Int, Never>()
        let compound = CompoundDisposable()
        for n in 1...4 { compound.add { log.append(.next(n)) } }
        #expect(log.values == [])
        compound.dispose()
        compound.dispose()
        #expect(log.values == [1, 2, 3, 4])
        #expect(compound.isDisposed)
    }

    @Test func compoundInitialChildrenAreDisposed() {
        let first = ActionDisposable()
        let second = ActionDisposable()
        let compound = CompoundDisposable([first, second])
        compound.dispose()
        #expect(first.isDisposed)
        #expect(second.isDisposed)
    }

    @Test func addingToADisposedCompoundDisposesTheNewcomerAtOnce() {
        let compound = CompoundDisposable()
        compound.dispose()
        let newcomer = ActionDisposable()
        compound.add(newcomer)
        #expect(newcomer.isDisposed)
        let ran = Flag()
        compound.add { ran.set() }
        #expect(ran.isSet)
    }

    @Test func removedChildIsNotDisposed() {
        let compound = CompoundDisposable()
        let child = ActionDisposable()
        let other = ActionDisposable()
        compound.add(child)
        compound.add(other)
        compound.remove(child)
        compound.dispose()
        #expect(!child.isDisposed)
        #expect(other.isDisposed)
    }

    @Test func childDisposingItsParentDoesNotDeadlock() {
        let compound = CompoundDisposable()
        let log = Recorder<String, Never>()
        compound.add {
            log.append(.next("first"))
            compound.dispose()   // re-entrant: must return at once
            log.append(.next("first done"))
        }
        compound.add { log.append(.next("second")) }
        compound.dispose()
        #expect(log.values == ["first", "first done", "second"])
        #expect(compound.isDisposed)
    }

    @Test func childAddingToItsParentWhileBeingDisposed() {
        let compound = CompoundDisposable()
        let late = ActionDisposable()
        compound.add { compound.add(late) }
        compound.dispose()
        #expect(late.isDisposed, "added during disposal: disposed at once")
    }

    @Test func compoundDisposedFromManyThreadsDisposesEachChildOnce() {
        let runs = Counter()
        for _ in 0..<100 {
            let compound = CompoundDisposable()
            for _ in 0..<4 { compound.add { runs.increment() } }
            DispatchQueue.concurrentPerform(iterations: 8) { _ in compound.dispose() }
        }
        #expect(runs.count == 400)
    }

    @Test func disposedByCompound() {
        let compound = CompoundDisposable()
        let child = ActionDisposable()
        child.disposed(by: compound)
        compound.dispose()
        #expect(child.isDisposed)
    }

    // MARK: SerialDisposable

    @Test func serialReplacingDisposesTheOldOne() {
        let serial = SerialDisposable()
        let first = ActionDisposable()
        let second = ActionDisposable()
        serial.inner = first
        #expect(!first.isDisposed)
        serial.inner = second
        #expect(first.isDisposed)
        #expect(!second.isDisposed)
        #expect(serial.inner === second)
        serial.dispose()
        #expect(second.isDisposed)
        #expect(serial.isDisposed)
        #expect(serial.inner == nil)
    }

    @Test func serialSettingAfterDisposalDisposesTheNewcomer() {
        let serial = SerialDisposable(ActionDisposable())
        serial.dispose()
        let late = ActionDisposable()
        serial.inner = late
        #expect(late.isDisposed)
        #expect(serial.inner == nil)
    }

    @Test func serialSwapReturnsTheOldOneWithoutDisposingIt() {
        let first = ActionDisposable()
        let serial = SerialDisposable(first)
        let second = ActionDisposable()
        let old = serial.swap(second)
        #expect(old === first)
        #expect(!first.isDisposed)
        #expect(serial.inner === second)
    }

    @Test func serialInnerThatReplacesItselfWhenDisposed() {
        // The old inner's cleanup sets a new inner: no deadlock, the newcomer stays.
        let serial = SerialDisposable()
        let replacement = ActionDisposable()
        serial.inner = ActionDisposable { serial.inner = replacement }
        serial.inner = ActionDisposable()
        #expect(serial.inner === replacement)
        #expect(!replacement.isDisposed)
        serial.dispose()
        #expect(replacement.isDisposed)
    }

    // MARK: ScopedDisposable

    @Test func scopedDisposesOnDeinit() {
        let inner = ActionDisposable()
        var scoped: ScopedDisposable? = ScopedDisposable(inner)
        #expect(!inner.isDisposed)
        #expect(scoped?.isDisposed == false)
        scoped = nil
        #expect(inner.isDisposed)
    }

    @Test func scopedHelperAndExplicitDispose() {
        let inner = ActionDisposable()
        var scoped: ScopedDisposable? = inner.scoped()
        scoped?.dispose()
        #expect(inner.isDisposed)
        #expect(scoped?.isDisposed == true)
        scoped = nil
        let subject = Subject<Int, Never>()
        var subscription: ScopedDisposable? = subject.signal.subscribe(next: { _ in }).scoped()
        #expect(subject.subscriberCount == 1)
        withExtendedLifetime(subscription) {}
        subscription = nil
        #expect(subject.subscriberCount == 0)
    }

    // MARK: DisposeBag

    @Test func disposeBagDisposesOnDeinit() {
        let first = ActionDisposable()
        let second = ActionDisposable()
        var bag: DisposeBag? = DisposeBag()
        first.disposed(by: bag!)
        bag?.insert(second)
        #expect(!first.isDisposed)
        bag = nil
        #expect(first.isDisposed)
        #expect(second.isDisposed)
    }

    @Test func disposeBagExplicitDisposeAndLateInsert() {
        let bag = DisposeBag()
        let subject = Subject<Int, Never>()
        subject.signal.subscribe(next: { _ in }).disposed(by: bag)
        #expect(subject.subscriberCount == 1)
        bag.dispose()
        #expect(bag.isDisposed)
        #expect(subject.subscriberCount == 0)
        let late = ActionDisposable()
        bag.insert(late)
        #expect(late.isDisposed)
    }
}
