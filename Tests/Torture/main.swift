// The torture test: randomized, seeded runs of several processes writing one SQLite file through
// Tether stores, with faults and kills, then a check of the sync protocol's invariants
// (Sources/TetherSQLite/TetherSQLite.docc/Persistence.md, "The torture test").
//
//   tether-torture run [--seed S] [--seeds A...B] [--workers K] [--operations N] [--rows R]
//                      [--busy MS] [--no-kills] [--no-faults] [--no-shell] [--keep DIR]
//       runs one seed, or each seed of A...B; prints one summary line per seed and every
//       violation; exits 1 if any. A failing seed replays with the same flags.
//   tether-torture worker PATH SEED INDEX OPERATIONS ROWS BUSY faults|nofaults
//       one worker (started by `run`).

import Foundation

let arguments = CommandLine.arguments
let executable = URL(fileURLWithPath: arguments[0]).standardizedFileURL.path

func usage() -> Never {
    FileHandle.standardError.write(Data("usage: tether-torture run [--seed S | --seeds A...B] [--workers K] [--operations N] [--rows R] [--busy MS] [--no-kills] [--no-faults] [--no-shell] [--keep DIR]\n".utf8))
    exit(2)
}

guard arguments.count >= 2 else { usage() }
switch arguments[1] {
case "worker":
    guard arguments.count == 9, let seed = UInt64(arguments[3]), let index = Int(arguments[4]),
          let operations = Int(arguments[5]), let rows = Int(arguments[6]), let busy = Int(arguments[7]) else { usage() }
    runWorker(WorkerOptions(path: arguments[2], seed: seed, index: index, operations: operations, rows: rows,
                            busyMilliseconds: busy, faults: arguments[8] == "faults"))
case "run":
    var options = RunOptions()
    var seeds: ClosedRange<UInt64> = 1...1
    var rest = arguments.dropFirst(2).makeIterator()
    while let flag = rest.next() {
        switch flag {
        case "--seed":
            guard let value = rest.next().flatMap({ UInt64($0) }) else { usage() }
            seeds = value...value
        case "--seeds":
            let bounds = rest.next()?.components(separatedBy: "...").compactMap { UInt64($0) } ?? []
            guard bounds.count == 2, bounds[0] <= bounds[1] else { usage() }
            seeds = bounds[0]...bounds[1]
        case "--workers":
            guard let value = rest.next().flatMap({ Int($0) }), (1...maximumWorkers).contains(value) else { usage() }
            options.workers = value
        case "--operations":
            guard let value = rest.next().flatMap({ Int($0) }) else { usage() }
            options.operations = value
        case "--rows":
            guard let value = rest.next().flatMap({ Int($0) }), value > 0 else { usage() }
            options.rows = value
        case "--busy":
            guard let value = rest.next().flatMap({ Int($0) }) else { usage() }
            options.busyMilliseconds = value
        case "--no-kills": options.kills = false
        case "--no-faults": options.faults = false
        case "--no-shell": options.shell = false
        case "--keep":
            guard let value = rest.next() else { usage() }
            options.directory = value
            options.keep = true
        default: usage()
        }
    }
    var failed = 0
    for seed in seeds {
        options.seed = seed
        let violations = runTorture(options, executable: executable)
        for violation in violations { say("  violation: \(violation)") }
        if !violations.isEmpty { failed += 1 }
    }
    if seeds.count > 1 { say("\(seeds.count - failed) passed, \(failed) failed") }
    exit(failed == 0 ? 0 : 1)
default:
    usage()
}
