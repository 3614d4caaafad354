import Testing
import TetherTerminal

@Test func terminalModuleReExportsTether() {
    let channel = Channel<String>()
    let seen = Recorder()
    _ = channel.following.signal.subscribe(next: { seen.add($0) })
    channel.leading.sendNext("x")
    #expect(seen.values == ["x"])
}

final class Recorder: Sendable {
    private let storage = _Storage()
    var values: [String] { storage.values }
    func add(_ value: String) { storage.add(value) }
}

import Synchronization
private final class _Storage: Sendable {
    private let lock = Mutex<[String]>([])
    var values: [String] { lock.withLock { $0 } }
    func add(_ value: String) { lock.withLock { $0.append(value) } }
}
