import ArgumentParser
import ChaosBench
import ChaosKit
import Foundation

extension HelperBench {
  /// `runs` fresh processes per owner and load, owners alternating: each makes a new SIGTERM
  /// owner during its launch and times the organizer's adoption (`--stop-window`).
  static func stopWindow(_ helper: String, runs: Int, workDirectory: String) throws -> StopWindowCost {
    var rows: [StopWindowCost.Row] = []
    for loaded in [false, true] {
      let load = loaded ? try BusyLoad() : nil
      defer { load?.stop() }
      var samples: [String: [UInt64]] = [
        "dispatch": [], "dispatch-registered": [], "dispatch-installed": [], "handler": [],
      ]
      for run in 0..<runs {
        for owner in ["dispatch", "handler"] {
          let directory = workDirectory + "/stop-window-\(owner)-\(run)"
          let result = try json(helper, ["--stop-window", owner, directory])
          guard case .number(let window)? = result["window_ns"] else {
            throw ValidationError("\(helper) --stop-window \(owner) printed no window: \(result)")
          }
          samples[owner, default: []].append(UInt64(window))
          if case .number(let registered)? = result["registered_window_ns"] {
            samples["dispatch-registered", default: []].append(UInt64(registered))
          }
          if case .number(let installed)? = result["installed_window_ns"] {
            samples["dispatch-installed", default: []].append(UInt64(installed))
          }
        }
      }
      for owner in ["dispatch", "dispatch-installed", "dispatch-registered", "handler"] {
        rows.append(.init(owner: owner, loaded: loaded, window: LatencySummary(nanoseconds: samples[owner] ?? [])))
      }
    }
    return StopWindowCost(rows: rows)
  }
}
