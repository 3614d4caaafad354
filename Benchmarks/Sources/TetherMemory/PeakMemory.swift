// M2's second half (issue 18): the peak resident memory of a process that loads 1,000,000 rows as
// objects and reads a property of each once, with the Observation bridge on (Tether), beside the
// same with the bridge off, the raw C API and GRDB. Each version runs in a process of its own
// (`TetherMemory peak-child <version> <file> <count>`), which reports its peak resident memory;
// `TetherMemory peak` makes the file, runs each version 3 times, and prints the medians.
import CSQLiteBench
import Foundation
import Tether
import TetherSQLite

/// The versions `peak-child` runs.
let peakVersions = ["raw", "grdb", "tether-bridge-off", "tether-bridge-on"]

/// This process's peak resident memory, in MB: `VmHWM` in `/proc/self/status`, the high-water
/// mark of its own address space. (`ru_maxrss` would not do: a process started by another
/// inherits, across fork and exec, the peak of the one that started it.)
func peakResidentMegabytes() -> Double {
    let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
    let line = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") } ?? ""
    let kilobytes = line.split(separator: " ").dropFirst().first.flatMap { Double($0) }
    return (kilobytes ?? .nan) / 1024
}

/// Loads every row of `path` as an object, reads a property of each once, and returns the
/// sum read (checked by the caller) with the objects still alive.
func peakChild(_ version: String, path: String, count: Int) throws -> Double {
    var total = 0
    switch version {
    case "raw":
        var models: [RawMemoryInvoice] = []
        return withRawInvoiceRows(path) { statement in
            appendRawInvoices(statement, to: &models)
            for model in models { total &+= model.quantity }
            precondition(models.count == count, "peak raw: every row loaded")
            sink(total)
            return peakResidentMegabytes()
        }
    case "grdb":
        let models = try grdbRecords(path)
        for model in models { total &+= model.quantity }
        precondition(models.count == count, "peak GRDB: every row loaded")
        sink(total)
        return peakResidentMegabytes()
    case "tether-bridge-off", "tether-bridge-on":
        ObservationBridge.isEnabled = version == "tether-bridge-on"
        let store = try Store(path: path, scheduler: TestScheduler(), watchesExternalChanges: false)
        let models = try store.fetch(MemoryInvoice.self)
        for model in models { total &+= model.quantity }   // under the bridge: Observation reads
        precondition(models.count == count, "peak Tether: every row loaded")
        sink(total)
        let peak = peakResidentMegabytes()
        withExtendedLifetime(models) {}
        try store.close()
        return peak
    default:
        preconditionFailure("unknown version \(version)")
    }
}

/// Runs `peak-child` for each version `runs` times; the median peak of each, in MB.
func peakMedians(path: String, count: Int, runs: Int) throws -> [(version: String, median: Double, all: [Double])] {
    try peakVersions.map { version in
        let all = try (0..<runs).map { _ -> Double in
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/proc/self/exe")
            process.arguments = ["peak-child", version, path, String(count)]
            let output = Pipe()
            process.standardOutput = output
            try process.run()
            let data = output.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            guard process.terminationStatus == 0, let text = String(data: data, encoding: .utf8),
                  let megabytes = Double(text.trimmingCharacters(in: .whitespacesAndNewlines))
            else { throw CocoaError(.executableLoad) }
            return megabytes
        }
        return (version, all.sorted()[runs / 2], all)
    }
}
