// `swift run invoices`: the invoice form in the terminal, kept in an SQLite file.
//
//   invoices [--database PATH] [--adopt]   (default: $XDG_DATA_HOME/tether/invoices.sqlite,
//                                           else ~/.local/share/tether/invoices.sqlite)
//
// The models live on the main thread: the store is opened here, with its default scheduler
// (MainScheduler), and `Terminal.run` runs everything on the main actor, which the main
// thread serves (see the end of this file). The app itself is in
// InvoiceKit (Samples/InvoiceKit), where the unit tests drive it.
//
// Log messages (swift-log: Tether's `tether.binding` and `tether.store` loggers, the app's
// `invoices`) go to a log file under $XDG_STATE_HOME (`LogOutput`), so they never land in the
// middle of the form; at exit one line says how many there were and where.

import Foundation
import InvoiceKit
import Logging
import TetherSQLite
import TetherTerminal

let environment = ProcessInfo.processInfo.environment
let logOutput = LogOutput(path: LogOutput.defaultPath(environment: environment))
LoggingSystem.bootstrap(logOutput.handler)

func fail(_ message: String, status: Int32) -> Never {
    FileHandle.standardError.write(Data("invoices: \(message)\n".utf8))
    exit(status)
}

let options = InvoicesOptions.parseOrExit()
let path: String
do {
    path = try options.databasePath(environment: environment)
} catch {
    fail("\(error)", status: 2)
}
// The form needs a terminal that can show it, before any file is touched.
if let problem = terminalProblem(environment: environment, standardInputIsTerminal: isatty(STDIN_FILENO) == 1,
                                 standardOutputIsTerminal: isatty(STDOUT_FILENO) == 1) {
    fail(problem, status: 1)
}

// The default file's folder is made (the XDG data folder, on a first run); a folder given with
// --database must exist: a mistyped path never grows folders and example invoices.
let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
if options.database == nil {
    do {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    } catch {
        fail("cannot create \(directory): \(error.localizedDescription)", status: 1)
    }
} else {
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
        fail("the folder \(directory) does not exist: create it first, or give another --database", status: 1)
    }
}

let terminal = Terminal()

let store: Store
do {
    store = try openInvoiceStore(path: path, adoptingOtherTables: options.adopt)
} catch {
    fail("cannot open \(path): \(error)", status: 1)
}

let app = InvoiceApp(store: store, title: path) {
    terminal.setNeedsDisplay()
}
Task { @MainActor in
    do {
        logOutput.hold()
        defer { logOutput.release() }   // `run` has restored the terminal by then
        // Ctrl-Z suspends: what was typed is written first (a stopped process may never go on).
        try await terminal.run(willSuspend: { try? store.flush() }, render: { app.render($0) }, handle: { app.handle($0) })
    } catch {
        fail("\(error)", status: 1)
    }
    if app.quitsWithoutSaving {
        // The user was told what is not saved, and chose to quit: not tried again.
        let lost = store.closeDiscardingChanges()
        if let summary = logOutput.summary() { FileHandle.standardError.write(Data("invoices: \(summary)\n".utf8)) }
        fail("quit without saving \(lost) changed row\(lost == 1 ? "" : "s"), as asked", status: 1)
    }
    do throws(StoreError) {
        // Written, and the database is one self-contained file again (no -wal, no -shm).
        try store.close()
    } catch {
        if let summary = logOutput.summary() { FileHandle.standardError.write(Data("invoices: \(summary)\n".utf8)) }
        fail("\(SaveState.reason(for: error)): changes not saved (\(logOutput.path.map { "details in \($0)" } ?? "see above"))", status: 1)
    }
    if let summary = logOutput.summary() { FileHandle.standardError.write(Data("invoices: \(summary)\n".utf8)) }
    exit(0)
}

// Serve the main queue (the main actor's executor, and the store's MainScheduler) on the main
// thread, the thread that created the store and the models above. Not `await` at the top
// level, nor `dispatchMain()`: on Linux both end the main thread and serve the main queue from
// another thread, which does not own the models (every binding would refuse their edits).
while true {
    _ = RunLoop.main.run(mode: .default, before: .distantFuture)
}
