import ChaosKit
import Foundation

/// Everything `chaos bench` measured, for `--json`.
public struct BenchReport: Codable, Sendable {
  public var handler: [HandlerLatencyBenchmark.Row]?
  /// The handler's walk repeated in one process: cold first run, then warm.
  public var warmHandler: [String: JSONValue]?
  public var reap: [CrashToReapBenchmark.Cell]?
  public var throughput: [ThroughputBenchmark.Row]?
  public var protection: ProtectionCostBenchmark.Report?
  /// Crash capture's install, first in a fresh process.
  public var install: CrashCaptureInstallCost?
  public var scheduler: [String: JSONValue]?
  public var failpoints: [String: JSONValue]?
  /// `chaos explore` launches per second at jobs 1 and 2.
  public var explore: [ExploreThroughputBenchmark.Row]?
  /// An inert ChaosProbe (not under chaos): `declare` + `attach` × 2, first in a fresh process.
  public var inertProbe: InertProbeCost?
  /// The protection cost of a fresh process's one launch, default configuration.
  public var firstLaunch: FirstLaunchCost?
  /// The launch path's instructions (callgrind), when valgrind is installed.
  public var instructions: InstructionCounts?
  /// How long a SIGTERM owner that appears during the launch has SIGTERM before the adoption.
  public var stopWindow: StopWindowCost?

  /// The protected program against a FoundationEssentials hello: sizes, start-to-exit, RSS.
  public var wholeProcess: WholeProcessBenchmark.Report?

  /// An empty report.
  public init() {}
}

/// The text tables of `chaos bench`.
public enum BenchTables {
  static func format(_ value: Double) -> String {
    value >= 100 ? String(Int(value.rounded())) : String(format: "%.1f", value)
  }

  static func pad(_ text: String, _ width: Int, left: Bool = false) -> String {
    let fill = String(repeating: " ", count: max(0, width - text.count))
    return left ? text + fill : fill + text
  }

  /// Handler latency per fault.
  public static func handler(_ rows: [HandlerLatencyBenchmark.Row]) -> String {
    var lines = ["", "Crash handler latency, first crash of a fresh process (µs)"]
    lines.append(
      pad("fault", 20, left: true) + pad("n", 7)
        + ["deliv p50", "p90", "p99", "max", "handler p50", "p90", "p99", "max"].map { pad($0, 12) }.joined())
    for row in rows {
      let values = [
        row.delivery.p50, row.delivery.p90, row.delivery.p99, row.delivery.max, row.handler.p50, row.handler.p90,
        row.handler.p99, row.handler.max,
      ]
      lines.append(
        pad(row.fault, 20, left: true) + pad(String(row.handler.count), 7)
          + values.map { pad(format($0), 12) }.joined())
    }
    return lines.joined(separator: "\n")
  }

  /// The warm path: the same walk-and-format repeated in one process.
  public static func warmHandler(_ json: [String: JSONValue]) -> String {
    func value(_ key: String) -> String {
      guard case .number(let number)? = json[key] else { return "?" }
      return format(number)
    }
    return """
      handler walk + format repeated in one process (\(json["runs"]?.description ?? "?") runs, ~15 frames, no signal, µs): \
      first \(value("first_us")), warm p50 \(value("warm_p50_us")), p99 \(value("warm_p99_us")), max \(value("warm_max_us"))
      """
  }

  /// Crash-to-reap per fault and configuration, with ratios against ours.
  public static func reap(_ cells: [CrashToReapBenchmark.Cell]) -> String {
    var lines = ["", "Crash-to-reap: fault → waitpid in the parent (µs), interleaved"]
    lines.append(
      pad("fault", 15, left: true) + pad("setup", 18, left: true)
        + ["n", "p50", "p90", "p99", "max", "/no handler"].map { pad($0, 14) }.joined())
    var faults: [String] = []
    for cell in cells where !faults.contains(cell.fault) { faults.append(cell.fault) }
    for fault in faults {
      let floor = cells.first { $0.fault == fault && $0.configuration == "no handler" }?.reap.p50 ?? 0
      for cell in cells where cell.fault == fault {
        let ratio = floor > 0 ? String(format: "%.2f×", cell.reap.p50 / floor) : "-"
        lines.append(
          pad(fault, 15, left: true) + pad(cell.configuration, 18, left: true) + pad(String(cell.reap.count), 14)
            + [cell.reap.p50, cell.reap.p90, cell.reap.p99, cell.reap.max].map { pad(format($0), 14) }.joined()
            + pad(ratio, 14))
      }
    }
    return lines.joined(separator: "\n")
  }

  /// Throughput rows.
  public static func throughput(_ rows: [ThroughputBenchmark.Row]) -> String {
    var lines = ["", "Harness throughput (launches per second)"]
    lines.append(
      pad("scenario", 10, left: true) + ["jobs", "chaos run", "direct", "overhead"].map { pad($0, 12) }.joined())
    for row in rows {
      lines.append(
        pad(row.scenario, 10, left: true) + pad(String(row.jobs), 12) + pad(format(row.harnessLaunchesPerSecond), 12)
          + pad(format(row.directLaunchesPerSecond), 12) + pad(String(format: "%.2f×", row.overhead), 12))
    }
    return lines.joined(separator: "\n")
  }

  /// Exploration throughput.
  public static func explore(_ rows: [ExploreThroughputBenchmark.Row]) -> String {
    var lines = ["", "chaos explore throughput (seed 1; compare chaos run above)"]
    lines.append(["jobs", "sequences", "launches", "seconds", "launches/s", "hangs"].map { pad($0, 14) }.joined())
    for row in rows {
      lines.append(
        [
          String(row.jobs), String(row.sequences), String(row.launches), format(row.seconds),
          format(row.launchesPerSecond),
          String(row.hangLaunches),
        ].map { pad($0, 14) }.joined())
    }
    // Where a launch's time goes, at the last jobs setting.
    if let row = rows.last, let harness = row.harnessCPUMilliseconds, let target = row.targetCPUMilliseconds {
      lines.append(
        "per launch at jobs \(row.jobs): CPU \(format(harness)) ms the harness, \(format(target)) ms the targets; "
          + "wall ms per part, summed over the jobs:")
      for part in row.parts ?? [] {
        lines.append("  " + pad(part.name, 52, left: true) + pad(format(part.millisecondsPerLaunch), 8))
      }
    }
    return lines.joined(separator: "\n")
  }

  /// Protection cost, per durability mode.
  public static func protection(_ report: ProtectionCostBenchmark.Report, iterations: Int) -> String {
    var rows: [(String, LatencySummary)] = []
    for mode in report.modes {
      rows += [
        ("\(mode.durability): finishLaunching after a crash", mode.finishLaunchingAfterCrash),
        ("\(mode.durability): finishLaunching after a clean launch", mode.finishLaunchingAfterCleanLaunch),
        ("\(mode.durability): launchingFinished", mode.launchingFinished),
        ("\(mode.durability): after a crash + launchingFinished", mode.afterCrashPlusFinished),
      ]
    }
    rows.append(("floor: two bare 4 KiB pwrites (no sync)", report.twoBarePwrites))
    if let systemCalls = report.pairSystemCalls {
      rows.append(("the processCrash pair's 19 system calls alone", systemCalls))
    }
    rows += [
      ("floor: bare 4 KiB pwrite + fdatasync", report.bareFdatasync),
      ("plain launch (no protection)", report.plainLaunch),
    ]
    var text =
      "\nLaunch cost of protection (\(iterations) iterations per mode, interleaved, µs)\n" + BenchTable.render(rows)
    func ratio(_ value: Double, _ floor: Double) -> String { floor > 0 ? String(format: "%.2f×", value / floor) : "-" }
    if let crash = report.modes.first(where: { $0.durability == "processCrash" }) {
      let pair = crash.afterCrashPlusFinished.p50
      text +=
        "\nprocessCrash pair (after a crash + launchingFinished), p50: "
        + "\(ratio(pair, report.twoBarePwrites.p50)) two bare pwrites, \(ratio(pair, report.bareFdatasync.p50)) "
        + "a bare pwrite + fdatasync"
      if let systemCalls = report.pairSystemCalls?.p50 {
        text +=
          "\nthe pair's system calls alone, p50: \(ratio(systemCalls, report.twoBarePwrites.p50)) two bare pwrites; "
          + "the pair: \(ratio(pair, systemCalls)) its system calls alone"
      }
    }
    if let power = report.modes.first(where: { $0.durability == "powerLoss" }) {
      text +=
        "\npowerLoss pair, p50: \(ratio(power.afterCrashPlusFinished.p50, report.bareFdatasync.p50)) "
        + "a bare pwrite + fdatasync"
    }
    return text
  }

  /// Instructions of the launch path (callgrind).
  public static func instructions(_ counts: InstructionCounts?, unavailable: String?) -> String {
    guard let counts else { return "\nInstructions (callgrind): \(unavailable ?? "not measured")" }
    return """

      Instructions (callgrind, stable on a noisy machine)
      processCrash pair (finishLaunching after a crash + launchingFinished)   \(Int(counts.processCrashPair.rounded()))
      first launch of a fresh process, the same pair, default configuration   \(Int(counts.freshFirstLaunch))
      """
  }

  /// A fresh process's one launch.
  public static func firstLaunch(_ cost: FirstLaunchCost) -> String {
    "\nFirst launch of a fresh process, default configuration (.processCrash, SIGTERM handler), after a crash (µs)\n"
      + BenchTable.render([
        ("finishLaunching", cost.finishLaunchingAfterCrash), ("launchingFinished", cost.launchingFinished),
        ("both", cost.together),
      ])
  }

  /// Crash capture's install cost.
  public static func install(_ cost: CrashCaptureInstallCost) -> String {
    "\nCrash capture install, first in a fresh process (µs)\n"
      + BenchTable.render([
        ("install, unwind tables prefaulted (default)", cost.prefaulted),
        ("install, prefaultUnwindTables = false", cost.notPrefaulted),
      ])
  }

  /// What an inert ChaosProbe adds to a launch.
  public static func inertProbe(_ cost: InertProbeCost) -> String {
    "\nInert ChaosProbe (CHAOS_EVENTS unset): declare + attach(workflow) + attach(organizer) (µs)\n"
      + BenchTable.render([
        ("first call in a fresh process", cost.firstCall),
        ("repeated in one process (median of 1000, per process)", cost.repeated),
      ])
  }

  /// Scheduler overhead.
  public static func scheduler(_ json: [String: JSONValue]) -> String {
    func value(_ key: String, _ field: String) -> String {
      guard case .object(let object)? = json[key], case .number(let number)? = object[field] else { return "?" }
      return String(format: "%.0f", number)
    }
    return """

      LaunchTasks scheduler, \(json["tasks"]?.description ?? "?") no-op tasks, random DAG with ~\(json["edges_per_task"]?.description ?? "?") edges each (ns per task)
      workflow  p50 \(value("workflow_ns_per_task", "p50"))  p99 \(value("workflow_ns_per_task", "p99"))
      plain loop p50 \(value("loop_ns_per_task", "p50"))  p99 \(value("loop_ns_per_task", "p99"))
      """
  }

  /// Failpoint cost.
  public static func failpoints(_ json: [String: JSONValue]) -> String {
    func value(_ key: String) -> String {
      guard case .number(let number)? = json[key] else { return "?" }
      return String(format: "%.2f", number)
    }
    return """

      Failpoint evaluation (ns per check, median of 5 × 20M)
      unconfigured registry   \(value("unconfigured_ns"))
      other name configured   \(value("configured_other_name_ns"))
      empty loop              \(value("empty_loop_ns"))
      """
  }
}
