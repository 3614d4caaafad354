#!/usr/bin/env python3
"""Turns the output of a benchmark run into the tables of docs/PERFORMANCE.md.

Usage: summarize.py BENCHMARK_MARKDOWN [W6_MARKDOWN]

(The P1-P3b and P7-P9 tables, persistence, and the T1/T2 tables, terminal, are printed when the run
has them.)

BENCHMARK_MARKDOWN is what `swift package benchmark --format markdown --path stdout --scale`
printed (per-sample totals, not scaled: dividing here keeps the digits that the scaled integer
output rounds away). W6_MARKDOWN is what `TetherMemory` printed; it is copied through.
"""
import re
import sys

# Inner iterations per sample (the benchmark's scalingFactor), by workload.
SCALE = {"C0": 1_000, "W1": 1_000, "W2": 1_000, "W3": 1_000, "W4": 1_000_000, "W7": 1_000,
         "W5a": 1_000_000, "W5b": 1_000_000, "W5c": 1_000_000, "W5d": 1_000, "W8": 1_000,
         "W9": 1_000_000,
         # P1-P3: a sample is the whole workload (100,000 rows or changes); P3b: 1,000 loads.
         "P1": 1, "P2": 1, "P3": 1, "P3b": 1_000,
         # P9: a sample is one fetch of 50,000 models; P9b: 1,000 fetches of one model.
         "P9": 1, "P9b": 1_000,
         # P7: 1,000 loads of an invoice with its customer and lines; P8: 1,000 changes.
         "P7": 1_000, "P8": 1_000,
         # P10: a sample is one page, or one change.
         "P10": 1,
         # T1: a sample is 1,000 keystrokes.
         "T1": 1_000}
UNIT_NS = {"ns": 1.0, "μs": 1e3, "us": 1e3, "ms": 1e6, "s": 1e9}
LIBRARIES = ["Tether", "OpenCombine", "Hand"]

# Workload: (title, unit of one operation, rows: (label, benchmark name without " — library")),
# target text.
WORKLOADS = [
    ("W1", "hot subject -> map -> filter -> scan -> subscriber", "ns per event",
     [("map-filter-scan, per event", "W1 map-filter-scan per event"),
      ("reference: subject -> subscriber only, per event", "W1 subject only per event")],
     "Tether <= 2x hand-written (the map-filter-scan rows)"),
    ("W2", "cold one-value signal: subscribe + dispose", "ns per iteration",
     [("just", "W2 just subscribe+dispose"), ("created (`Signal { observer in ... }`)", "W2 created subscribe+dispose")],
     "Tether <= 4x hand-written, <= 3 allocations"),
    ("W3", "combineLatest of 3 sources -> sum", "ns per update",
     [("per update", "W3 combineLatest3 per update")], "Tether <= 3x hand-written"),
    ("W4", "flatMap(.merge), 1,000 inner x 1,000 values", "ns per inner value",
     [("per inner value", "W4 flatMap(merge) per inner value")], "Tether <= 2x hand-written"),
    ("W7", "subscribe + dispose (map -> subscriber) with N others alive", "ns per subscribe+dispose",
     [("0 alive", "W7 subscribe+dispose, 0 alive"), ("100,000 alive", "W7 subscribe+dispose, 100k alive")],
     "no growth from 0 to 100,000 alive"),
    ("W9", "source -> map -> subscriber, fed by one thread or two at once", "ns per event",
     [("1 thread", "W9 1 thread send -> map -> subscriber per event"),
      ("2 threads", "W9 2 threads send -> map -> subscriber per event")],
     "with 2 threads, Tether <= 2x hand-written and ahead of every peer"),
]

# The model workloads: one row per version, each compared with the hand-written row.
# (workload, title, unit, benchmark name without " — version", rows: (version, label),
#  target text, target ratio (Tether / hand), versions judged against the target)
TETHER_ON, TETHER_OFF = "Tether (bridge on)", "Tether (bridge off)"
MODEL_WORKLOADS = [
    ("W5a", "set a tracked property with 1 observer of that key path", "ns per set", "W5a set, 1 observer",
     [("Hand", "hand-written: `didSet { onChange?(x) }`"),
      (TETHER_ON, "Tether `observe(model, \\.x)`, Observation bridge on (default)"),
      (TETHER_OFF, "Tether `observe(model, \\.x)`, Observation bridge off"),
      ("OpenCombine CurrentValueSubject", "OpenCombine `CurrentValueSubject` + `sink`"),
      ("OpenCombine @Published", "OpenCombine `@Published` + `$x.sink`"),
      ("Observation", "Swift Observation, `withObservationTracking` re-registered in `onChange`")],
     "Tether <= 2x hand-written", 2.0, [TETHER_ON, TETHER_OFF]),
    ("W5b", "set a tracked property with 10 observers of that key path", "ns per set", "W5b set, 10 observers",
     [("Hand", "hand-written: `didSet { for o in observers { o(x) } }`"),
      (TETHER_ON, "Tether, 10 x `observe(model, \\.x)`, bridge on (default)"),
      (TETHER_OFF, "Tether, 10 x `observe(model, \\.x)`, bridge off"),
      ("OpenCombine CurrentValueSubject", "OpenCombine `CurrentValueSubject` + 10 `sink`s"),
      ("OpenCombine @Published", "OpenCombine `@Published` + 10 `$x.sink`s")],
     "Tether <= 1.5x hand-written", 1.5, [TETHER_ON, TETHER_OFF]),
    ("W5c", "set a tracked property that nobody observes", "ns per set", "W5c set, nobody observing",
     [("Hand", "plain stored property, set through an `@inline(never)` function"),
      (TETHER_ON, "Tether tracked property, same `@inline(never)` setter, bridge on (default)"),
      (TETHER_OFF, "Tether tracked property, same `@inline(never)` setter, bridge off"),
      ("inlined:" + TETHER_ON, "(for reference) Tether, set inline in the loop, bridge on"),
      ("inlined:" + TETHER_OFF, "(for reference) Tether, set inline in the loop, bridge off"),
      ("read once:" + TETHER_ON, "(for reference) Tether, same setter, bridge on, the property read once before "
       "(Observation may observe it)")],
     "Tether <= 3x a plain stored property set", 3.0, [TETHER_ON, TETHER_OFF]),
    ("W5d", "observe a computed total over 3 tracked inputs, change one input", "ns per update",
     "W5d computed total per update",
     [("Hand", "hand-written: each input's `didSet` recomputes, calls back if changed"),
      (TETHER_ON, "Tether `observe(model, \\.total)`, bridge on (default)"),
      (TETHER_OFF, "Tether `observe(model, \\.total)`, bridge off"),
      ("Observation", "Swift Observation, `withObservationTracking { total }` re-registered")],
     "Tether <= 3x hand-written recompute", 3.0, [TETHER_ON, TETHER_OFF]),
    ("W8", "bind a hot subject to a model property", "ns per value", "W8 bind per value",
     [("Hand", "hand-written: the source's callback sets the property (`[weak target]`)"),
      (TETHER_ON, "Tether `bind(subject.signal, to: model, \\.x)`, bridge on (default)"),
      (TETHER_OFF, "Tether `bind(subject.signal, to: model, \\.x)`, bridge off"),
      ("OpenCombine", "OpenCombine `PassthroughSubject` + `assign(to: \\.x, on: object)`")],
     "Tether <= 2x hand-written", 2.0, [TETHER_ON, TETHER_OFF]),
]

# The persistence workloads: one row per version, each compared with the raw C API row.
# (workload, title, benchmark name without " — version", (operations per sample, their name)
#  (None: P3b, timed per load), rows: (version, label), target text, target ratio, what the
#  issue measured for GRDB)
RAW, GRDB = "Raw C API", "GRDB"
RAW_ROWS = "Raw C API, each changed row once"
# What each workload's ratios are taken against (the raw C API row unless named here): P2's
# write-through writes each changed row once, so it is compared with raw code that does too.
BASELINE = {"P2": RAW_ROWS}
PERSISTENCE = [
    ("P1", "insert 100,000 new models (one transaction)", "P1 insert 100k models", (100_000, "row"),
     [(RAW, "raw sqlite3: one prepared INSERT stepped per object, id read back"),
      (GRDB, "GRDB 7.10: Codable record `insert(db)` per object in one `write { }`"),
      (TETHER_ON, "Tether `store.insert(contentsOf:)`, bridge on (default)"),
      (TETHER_OFF, "Tether `store.insert(contentsOf:)`, bridge off")],
     "Tether <= 1.5x raw", 1.5, "7.3x"),
    ("P2", "100,000 property changes over 10,000 stored models, written and committed",
     "P2 100k changes over 10k models", (100_000, "change"),
     [(RAW_ROWS, "raw sqlite3: the objects changed in memory, then each changed row written once (prepared UPDATE) in one transaction"),
      (RAW, "raw sqlite3: 100,000 single-column UPDATEs (prepared), one per change, in one transaction"),
      (GRDB, "GRDB 7.10: set the property, `update(db)` the record, in one `write { }`"),
      (TETHER_ON, "Tether: set the property on live models, then `flush()`, bridge on (default)"),
      (TETHER_OFF, "Tether: set the property on live models, then `flush()`, bridge off")],
     "Tether <= 2x raw", 2.0, "9.5x"),
    ("P3", "load 100,000 rows as models (class instances)", "P3 load 100k models", (100_000, "row"),
     [(RAW, "raw sqlite3: prepared SELECT stepped into instances of a final class"),
      (GRDB, "GRDB 7.10: Codable record class, `order(Column(\"id\")).fetchAll(db)` in `read { }`"),
      (TETHER_ON, "Tether `store.fetch(_:)` into a fresh store, bridge on (default)"),
      (TETHER_OFF, "Tether `store.fetch(_:)` into a fresh store, bridge off")],
     "Tether <= 1.5x raw", 1.5, "4.4x"),
    ("P3b", "load one model by id, not in memory", "P3b load one model by id", None,
     [(RAW, "raw sqlite3: SELECT by id prepared once, read into a class instance"),
      (GRDB, "GRDB 7.10: `read { try Record.fetchOne(db, key: id) }`"),
      (TETHER_ON, "Tether `store.load(_:id:)`, the model dropped after each load, bridge on (default)"),
      (TETHER_OFF, "Tether `store.load(_:id:)`, the model dropped after each load, bridge off")],
     "Tether <= 2x raw", 2.0, "21x"),
]

# P9: a typed condition next to the same query as an SQL string. (workload, title, benchmark
# name without " — version", unit of one operation, scale from ns to that unit)
TYPED, SQL_STRING = "Typed condition", "SQL string"
P9_ROWS = [
    (TYPED, "`store.fetch(_:where: \\.quantity >= 50_000 && \\.customer != \"x\", orderBy: \\.quantity)`",
     "`store.fetch(_:where: \\.quantity == 12_345)`"),
    (SQL_STRING, "`store.fetch(_:where: \"quantity >= ? AND customer <> ?\", [50_000, \"x\"], orderBy: \\.quantity)`",
     "`store.fetch(_:where: \"quantity = ?\", [12_345])`"),
]
P9_WORKLOADS = [
    ("P9", "50,000 of the 100,000 rows by condition, ordered", "P9 fetch 50k by condition", "ms per fetch", 1e6, 1),
    ("P9b", "one row by condition (through an index)", "P9b fetch one by condition", "µs per fetch", 1e3, 2),
]


def p9_table(results):
    out = ["### P9: a typed condition next to the same query as an SQL string", "",
           "Median (p50) and p90 of the samples; allocations (package-benchmark's malloc counter, SQLite's "
           "own included) per fetch.", "",
           "| | median | p90 | allocations per fetch | samples | / SQL string (median) |",
           "|---|---:|---:|---:|---:|---:|"]
    verdicts = []
    for workload, title, base, unit, scale, label_index in P9_WORKLOADS:
        sql = results.get(model_name(base, SQL_STRING), {}).get("p50")
        for n, row in enumerate(P9_ROWS):
            version, label = row[0], row[label_index]
            entry = results.get(model_name(base, version), {})
            p50, p90, allocs = entry.get("p50"), entry.get("p90"), entry.get("allocs")
            head = f"**{workload}** ({unit}) {label}" if n == 0 else label
            out.append(f"| {head} | {fmt(p50 / scale if p50 else None, 2)} | {fmt(p90 / scale if p90 else None, 2)} "
                       f"| {fmt(allocs, 2)} | {entry.get('samples', '—')} | {ratio(p50, sql)} |")
        typed = results.get(model_name(base, TYPED), {}).get("p50")
        if typed and sql:
            verdicts.append(f"{workload}: {typed / sql:.3f}x, {'met' if typed / sql <= 1.05 else 'not met'}")
        else:
            verdicts.append(f"{workload}: not measured")
    out += ["", "Target: typed within 5% of the SQL string. " + "; ".join(verdicts) + ".", ""]
    return "\n".join(out)


# P7 and P8: related models. (workload, benchmark name without " — version", unit, scale from
# ns to that unit, rows: (version, label), the version the others are divided by)
RELATED_WORKLOADS = [
    ("P7", "P7 load an invoice, its customer and 100 lines", "µs per load", 1e3,
     [("Raw", "raw C API, three reads into plain objects"), ("Tether", "Tether `store.load(P7Invoice.self, id:)`"),
      ("GRDB", "GRDB associations")], "Raw"),
    ("P8", "P8 one line of 1,000 changes -> total", "µs per change", 1e3,
     [("Hand", "hand-written recompute"), ("Tether (not stored)", "Tether, models not stored"),
      ("Tether (stored)", "Tether, models stored (each change also recorded for write-through)")], "Hand"),
    ("P10", "P10 first page of 50 over 1M rows", "µs per first page", 1e3,
     [("Raw", "the page query (prepared once) into plain objects"),
      ("Tether", "Tether live query: subscribe, first result, dispose")], "Raw"),
    ("P10", "P10 one-row change of the page", "µs per change", 1e3,
     [("Raw", "another connection's commit, then the page query again"),
      ("Tether", "the same commit, then `refresh()` until the live query sent its result")], "Raw"),
]


def related_table(results):
    out = ["### P7, P8 and P10: related models and a paged live query", "",
           "| | median | p90 | allocations | samples | / raw or hand-written |", "|---|---:|---:|---:|---:|---:|"]
    for workload, base, unit, scale, rows, reference in RELATED_WORKLOADS:
        baseline = results.get(model_name(base, reference), {}).get("p50")
        for n, (version, label) in enumerate(rows):
            entry = results.get(model_name(base, version), {})
            p50, p90, allocs = entry.get("p50"), entry.get("p90"), entry.get("allocs")
            head = f"**{workload}** ({unit}) {label}" if n == 0 else label
            out.append(f"| {head} | {fmt(p50 / scale if p50 else None, 2)} | {fmt(p90 / scale if p90 else None, 2)} "
                       f"| {fmt(allocs, 0)} | {entry.get('samples', '—')} | {ratio(p50, baseline)} |")
    out += ["", "Targets: P7 within 2x raw and ahead of GRDB; P8 and P10: the ratios are reported.", ""]
    return "\n".join(out)


# The terminal workloads (T1, T2): one row per version, each compared with the hand-written full
# redraw. Custom metrics of the T1 benchmarks, per sample: (metric name in the output, key).
T1_BASE = "T1 keystroke, 20-field form"
HAND_FULL, HAND_CHANGED = "Hand (full redraw)", "Hand (changed fields)"
T1_ROWS = [
    (TETHER_ON, "Tether: `form.handle(key)`, widgets bound through channels, `FrameRenderer` diff, bridge on (default)"),
    (TETHER_OFF, "Tether: the same, bridge off"),
    (HAND_FULL, "hand-written: `didSet` recompute, whole screen written (cursor home + every row + EL)"),
    (HAND_CHANGED, "hand-written: `didSet` recompute, only the boxes whose text changed written"),
]
CUSTOM_METRICS = {"Bytes written": "bytes", "Characters written": "characters", "Cells changed": "cells"}


def terminal_tables(results):
    entries = {version: results.get(model_name(T1_BASE, version), {}) for version, _ in T1_ROWS}
    full = entries[HAND_FULL].get("p50")
    out = ["### T1: a keystroke in a 20-field form -> computed fields re-rendered -> bytes written", "",
           "Median (p50) and p90 of the samples, µs per keystroke (a sample is 1,000 keystrokes); "
           "allocations (package-benchmark's malloc counter) per keystroke.", "",
           "| | median µs | p90 µs | allocations | / hand-written full redraw (median) | samples |",
           "|---|---:|---:|---:|---:|---:|"]
    for version, label in T1_ROWS:
        entry = entries[version]
        p50, p90 = entry.get("p50"), entry.get("p90")
        out.append(f"| {label} | {fmt(p50 / 1e3, 2) if p50 else '—'} | {fmt(p90 / 1e3, 2) if p90 else '—'} "
                   f"| {fmt(entry.get('allocs'), 1)} | {ratio(p50, full)} | {entry.get('samples', '—')} |")
    verdicts = []
    for version in (TETHER_ON, TETHER_OFF):
        value = entries[version].get("p50")
        if value is None:
            verdicts.append(f"{version}: not measured")
        else:
            verdicts.append(f"{version}: {value / 1e3:.1f} µs (p90 {entries[version].get('p90', 0) / 1e3:.1f} µs), "
                            f"{'met' if entries[version].get('p90', value) <= 1e6 else 'not met'}")
    out += ["", "Target: at most 1 ms (1,000 µs) per keystroke with a 20-field form. " + "; ".join(verdicts) + ".", ""]

    out += ["### T2: bytes written per keystroke", "",
            "Per keystroke (the sample's totals / 1,000; every sample of a version writes the same bytes, "
            "which the benchmark checks). Characters: what a terminal fed with those bytes writes into cells. "
            "Cells changed: the cells that differ between consecutive frames (the same keystrokes for every "
            "version).", "",
            "| | bytes | characters written | cells changed | bytes / hand-written full redraw |",
            "|---|---:|---:|---:|---:|"]
    full_bytes = entries[HAND_FULL].get("bytes")
    for version, label in T1_ROWS:
        entry = entries[version]
        out.append(f"| {label} | {fmt(entry.get('bytes'))} | {fmt(entry.get('characters'))} "
                   f"| {fmt(entry.get('cells'))} | {ratio(entry.get('bytes'), full_bytes)} |")
    tether = entries[TETHER_ON]
    if tether.get("characters") is not None and tether.get("cells") is not None:
        extra = tether["characters"] - tether["cells"]
        out += ["", f"Target: only the changed cells. Tether (bridge on) writes {fmt(tether['characters'])} characters "
                f"for {fmt(tether['cells'])} changed cells per keystroke ({fmt(extra)} more: unchanged cells re-sent "
                f"where that is shorter than a cursor move), in {fmt(tether.get('bytes'))} bytes."]
    out.append("")
    return "\n".join(out)


def terminal_summary(results):
    tether = results.get(model_name(T1_BASE, TETHER_ON), {})
    off = results.get(model_name(T1_BASE, TETHER_OFF), {})
    full = results.get(model_name(T1_BASE, HAND_FULL), {})
    changed = results.get(model_name(T1_BASE, HAND_CHANGED), {})
    if tether.get("p50") is None:
        return ""
    t1 = (f"{tether['p50'] / 1e3:.1f} µs per keystroke (bridge off {off.get('p50', 0) / 1e3:.1f}); hand-written: full "
          f"redraw {full.get('p50', 0) / 1e3:.1f} µs, changed fields {changed.get('p50', 0) / 1e3:.1f} µs")
    t2 = (f"{fmt(tether.get('bytes'))} bytes per keystroke ({fmt(tether.get('characters'))} characters for "
          f"{fmt(tether.get('cells'))} changed cells); full redraw {fmt(full.get('bytes'))}, changed fields "
          f"{fmt(changed.get('bytes'))}")
    # Tether's renderer writes each changed cell once; what it writes beyond them are unchanged
    # cells re-sent in place of a longer cursor move (TerminalReplay counts the characters).
    extra = (tether.get("characters") or 0) - (tether.get("cells") or 0)
    t2_verdict = (f"yes ({fmt(extra)} unchanged cells re-sent per keystroke where shorter than a cursor move)"
                  if tether.get("characters") is not None else "—")
    return "\n".join([
        "### T1/T2 summary", "",
        "| Workload | Target | Tether (this run) | Met? |", "|---|---|---|---|",
        f"| T1 keystroke in a 20-field form -> bytes to a byte sink | <= 1 ms per keystroke | {t1} "
        f"| {'yes' if tether.get('p90', tether['p50']) <= 1e6 else '**no**'} |",
        f"| T2 bytes written per keystroke | only the changed cells | {t2} | {t2_verdict} |", ""])


def persistence_table(results, workload, title, base, per_sample, rows, target, limit, issue_grdb):
    if per_sample:
        count, noun = per_sample
        unit = f"ms per {count:,} {noun}s"
        heading = (f"| | median ms per {count:,} | p90 ms | {noun}s/s (median) | allocations per {noun} "
                   "| samples | / baseline (median) |")
        scale_time = lambda ns: ns / 1e6
        rate = lambda ns: count / (ns / 1e9)
        per_op = lambda allocs: allocs / count
    else:
        noun = "load"
        unit = "µs per load"
        heading = "| | median µs per load | p90 µs | loads/s (median) | allocations per load | samples | / baseline (median) |"
        scale_time = lambda ns: ns / 1e3
        rate = lambda ns: 1e9 / ns
        per_op = lambda allocs: allocs
    out = [f"### {workload}: {title}", "",
           f"Median (p50) and p90 of the samples, {unit}; throughput from the median; allocations "
           f"(package-benchmark's malloc counter, SQLite's own included) per {noun}.", "",
           heading, "|---|---:|---:|---:|---:|---:|---:|"]
    raw = results.get(model_name(base, BASELINE.get(workload, RAW)), {}).get("p50")
    for version, label in rows:
        entry = results.get(model_name(base, version), {})
        p50, p90, allocs = entry.get("p50"), entry.get("p90"), entry.get("allocs")
        out.append(f"| {label} | {fmt(scale_time(p50) if p50 else None)} | {fmt(scale_time(p90) if p90 else None)} "
                   f"| {fmt(rate(p50)) if p50 else '—'} | {fmt(per_op(allocs), 2) if allocs is not None else '—'} "
                   f"| {entry.get('samples', '—')} | {ratio(p50, raw)} |")
    verdicts = []
    for version in (TETHER_ON, TETHER_OFF):
        value = results.get(model_name(base, version), {}).get("p50")
        if value is None or not raw:
            verdicts.append(f"{version}: not measured")
        else:
            verdicts.append(f"{version}: {value / raw:.2f}x, {'met' if value / raw <= limit else 'not met'}")
    grdb = results.get(model_name(base, GRDB), {}).get("p50")
    grdb_text = f" GRDB: {grdb / raw:.2f}x here ({issue_grdb} in the issue's measurement)." if grdb and raw else ""
    out += ["", f"Target: {target}. " + "; ".join(verdicts) + "." + grdb_text, ""]
    return "\n".join(out)


def persistence_summary(results):
    out = ["### P1-P3b summary", "", "| Workload | Target | Tether, bridge on (default) | Tether, bridge off | Met? |",
           "|---|---|---:|---:|---|"]
    for workload, title, base, per_sample, rows, target, limit, _ in PERSISTENCE:
        raw = results.get(model_name(base, BASELINE.get(workload, RAW)), {}).get("p50")
        cells, met = [], []
        for version in (TETHER_ON, TETHER_OFF):
            value = results.get(model_name(base, version), {}).get("p50")
            if value is None or not raw:
                cells.append("—")
                continue
            shown = f"{value / 1e6:,.1f} ms" if per_sample else f"{value / 1e3:.2f} µs"
            raw_shown = f"{raw / 1e6:,.1f} ms" if per_sample else f"{raw / 1e3:.2f} µs"
            cells.append(f"{value / raw:.2f}x ({shown} vs {raw_shown})")
            met.append(value / raw <= limit)
        verdict = "—" if not met else ("yes" if all(met) else "no" if not any(met) else "bridge off only" if met[-1] else "bridge on only")
        out.append(f"| {workload} {title} | {target} | {cells[0]} | {cells[1]} | {verdict} |")
    return "\n".join(out) + "\n"


def model_name(base, version):
    """The benchmark name of one version ("inlined:" and "read once:" versions add ", inlined" or
    ", read once" to the base)."""
    if version.startswith("inlined:"):
        return f"{base}, inlined — {version[len('inlined:'):]}"
    if version.startswith("read once:"):
        return f"{base}, read once — {version[len('read once:'):]}"
    return f"{base} — {version}"


def model_table(results, workload, title, unit, base, rows, target, limit, judged):
    out = [f"### {workload}: {title}", "",
           f"Median (p50) and p90 of the samples, {unit}; allocations per operation (p50).", "",
           "| | median ns | p90 ns | allocations | / hand-written (median) |",
           "|---|---:|---:|---:|---:|"]
    hand = results.get(model_name(base, "Hand"), {}).get("p50")
    for version, label in rows:
        entry = results.get(model_name(base, version), {})
        out.append(f"| {label} | {fmt(entry.get('p50'))} | {fmt(entry.get('p90'))} "
                   f"| {fmt(entry.get('allocs'), 2)} | {ratio(entry.get('p50'), hand)} |")
    verdicts = []
    for version in judged:
        value = results.get(model_name(base, version), {}).get("p50")
        if value is None or not hand:
            verdicts.append(f"{version}: not measured")
        else:
            met = "met" if value / hand <= limit else "not met"
            verdicts.append(f"{version}: {value / hand:.2f}x, {met}")
    out += ["", f"Target: {target}. " + "; ".join(verdicts) + ".", ""]
    return "\n".join(out)


def parse_number(text):
    text = text.strip()
    return float(text)


def parse(path):
    """name -> {"p50": ns, "p90": ns, "allocs": count per operation}"""
    results = {}
    name = None
    for line in open(path, encoding="utf-8"):
        line = line.rstrip("\n")
        if line.startswith("### "):
            name = line[4:].strip()
            continue
        if name is None or not line.startswith("|") or line.startswith("|:") or "Metric" in line:
            continue
        cells = [c.strip() for c in line.strip("|").split("|")]
        metric, values = cells[0], cells[1:]
        if len(values) < 8:
            continue
        workload = name.split(" ", 1)[0]
        scale = SCALE.get(workload, 1)
        entry = results.setdefault(name, {})
        time = re.match(r"Time \(wall clock\) \((\S+)\)", metric)
        if time:
            factor = UNIT_NS[time.group(1)] / scale
            entry["p50"] = parse_number(values[2]) * factor
            entry["p90"] = parse_number(values[4]) * factor
            entry["samples"] = int(parse_number(values[7]))
        elif metric in CUSTOM_METRICS:
            entry[CUSTOM_METRICS[metric]] = parse_number(values[2]) / scale
        elif metric.startswith("Malloc (total)"):
            unit = re.search(r"\((K|M|G)\)", metric)
            factor = {"K": 1e3, "M": 1e6, "G": 1e9}[unit.group(1)] if unit else 1
            entry["allocs"] = parse_number(values[2]) * factor / scale
    return results


def fmt(value, digits=1):
    if value is None:
        return "—"
    if 0 < value < 0.1:
        return f"{value:.2g}"
    if value >= 100:
        return f"{value:,.0f}"
    return f"{value:.{digits}f}"


def ratio(a, b):
    if a is None or b is None or b == 0:
        return "—"
    return f"{a / b:.2f}x"


def table(results, workload, title, unit, rows, target):
    out = [f"### {workload}: {title}", "",
           f"Median (p50) and p90 of the samples, {unit}; allocations per operation (p50).", "",
           "| | Tether | OpenCombine | Hand-written | Tether / hand | OpenCombine / hand |",
           "|---|---:|---:|---:|---:|---:|"]
    for label, base in rows:
        get = lambda lib, key: results.get(f"{base} — {lib}", {}).get(key)
        for key, what in (("p50", "median ns"), ("p90", "p90 ns"), ("allocs", "allocations")):
            t, o, h = (get(lib, key) for lib in LIBRARIES)
            if t is None and o is None and h is None:
                continue
            digits = 2 if key == "allocs" else 1
            out.append(f"| {label}: {what} | {fmt(t, digits)} | {fmt(o, digits)} | {fmt(h, digits)} "
                       f"| {ratio(t, h) if key != 'allocs' else '—'} | {ratio(o, h) if key != 'allocs' else '—'} |")
    if workload == "W7":
        get = lambda base, lib: results.get(f"{base} — {lib}", {}).get("p50")
        (_, zero), (_, many) = rows
        growth = [ratio(get(many, lib), get(zero, lib)) for lib in LIBRARIES]
        out.append(f"| growth, 100,000 alive / 0 alive (medians) | {growth[0]} | {growth[1]} | {growth[2]} | | |")
    out += ["", f"Target: {target}.", ""]
    return "\n".join(out)


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        sys.exit(2)
    results = parse(sys.argv[1])
    if results and all(name.startswith("T1 ") for name in results):
        # A run of the terminal workloads only (./run.sh --filter "T[0-9].*").
        print("\n".join([terminal_tables(results), terminal_summary(results)]))
        return
    sections = [table(results, *w) for w in WORKLOADS]
    if len(sys.argv) > 2:
        w6 = open(sys.argv[2], encoding="utf-8").read().strip()
        sections.insert(4, "### W6: memory per live subscription\n\n" + w6 + "\n")
    sections += [model_table(results, *w) for w in MODEL_WORKLOADS]
    if any(name.startswith("P") for name in results):
        sections += [persistence_table(results, *w) for w in PERSISTENCE] + [persistence_summary(results)]
    if any(name.startswith("P9") for name in results):
        sections.append(p9_table(results))
    if any(name.startswith(("P7", "P8", "P10")) for name in results):
        sections.append(related_table(results))
    if any(name.startswith("T1 ") for name in results):
        sections += [terminal_tables(results), terminal_summary(results)]
    print("\n".join(sections))
    lock = results.get("C0 Mutex.withLock round trip", {}).get("p50")
    atomic = results.get("C0 Atomic add", {}).get("p50")
    if lock is not None and atomic is not None:
        print(f"Calibration on this machine (median): an uncontended Mutex.withLock round trip "
              f"{fmt(lock)} ns, an atomic add {fmt(atomic)} ns.")
    empty = results.get("C0 empty sample", {}).get("p50")
    if empty is not None:
        print(f"Measuring an empty sample costs {fmt(empty * 1_000)} ns (median), that is "
              f"{fmt(empty)} ns per operation of a 1,000-operation sample and "
              f"{fmt(empty / 1_000)} ns per operation of a 1,000,000-operation sample.")
    missing = [f"{base} — {lib}" for _, _, _, rows, _ in WORKLOADS for _, base in rows for lib in LIBRARIES
               if f"{base} — {lib}" not in results and not (base.startswith("W2 created") and lib != "Tether")]
    missing += [model_name(base, version) for _, _, _, base, rows, _, _, _ in MODEL_WORKLOADS
                for version, _ in rows if model_name(base, version) not in results]
    missing += [model_name(base, version) for _, _, base, _, rows, _, _, _ in PERSISTENCE
                for version, _ in rows if model_name(base, version) not in results]
    missing += [model_name(base, version) for _, _, base, _, _, _ in P9_WORKLOADS for version, _, _ in P9_ROWS
                if model_name(base, version) not in results]
    if any(name.startswith(("P7", "P8", "P10")) for name in results):
        missing += [model_name(base, version) for _, base, _, _, rows, _ in RELATED_WORKLOADS for version, _ in rows
                    if model_name(base, version) not in results]
    if any(name.startswith("T1 ") for name in results):
        missing += [model_name(T1_BASE, version) for version, _ in T1_ROWS
                    if model_name(T1_BASE, version) not in results]
    if missing:
        print("Not measured in this run: " + "; ".join(missing))


if __name__ == "__main__":
    main()
