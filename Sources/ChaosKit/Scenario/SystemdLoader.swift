import Foundation
import Yams

/// Reads `systemd:` (the scenario's unit), a launch's `start:` and `systemctl:`, and the
/// `systemd:`, `journal_contains:` and `started_at:` expectations (ScenarioLoader's part for a
/// real systemd).
enum SystemdLoader {
  /// Keys allowed in `systemd`.
  static let keys = ["unit", "dropin", "users", "boot_timeout"]
  /// Keys allowed in a launch's `systemctl`.
  static let stepKeys = ["command", "after_event", "signal"]
  /// Keys allowed in `expect.systemd`.
  static let expectationKeys = [
    "n_restarts", "result", "active_state", "sub_state", "exec_main_status", "status_text", "state_directory_mode",
  ]
  /// Keys allowed in `expect.started_at`.
  static let startedAtKeys = ["min", "max"]

  /// `systemd:`. `unit` is a file beside the scenario (its name is the unit's) or the unit's
  /// text itself (a value with a line break; installed as `chaos.service`).
  static func spec(_ node: Node, scenarioPath: String, reader: NodeReader) throws(ScenarioError) -> SystemdSpec {
    let map = try reader.mapping(node, keys: keys, what: "systemd")
    guard let unitNode = map["unit"] else {
      throw reader.error(node, "systemd needs 'unit' (a file or the unit's text)")
    }
    let unit = try reader.string(unitNode, what: "unit")
    var spec: SystemdSpec
    if unit.contains("\n") {
      spec = SystemdSpec(unitName: "chaos.service", unitText: unit)
    } else {
      let folder = URL(fileURLWithPath: scenarioPath).deletingLastPathComponent().path
      let path = unit.hasPrefix("/") ? unit : folder + "/" + unit
      guard let data = FileManager.default.contents(atPath: path) else {
        throw reader.error(unitNode, "cannot read the unit file \(path)")
      }
      let name = URL(fileURLWithPath: path).lastPathComponent
      guard [".service"].contains(where: name.hasSuffix) else {
        throw reader.error(unitNode, "the unit file's name must end in .service, not '\(name)'")
      }
      spec = SystemdSpec(unitName: name, unitText: String(decoding: data, as: UTF8.self))
    }
    guard spec.unitText.contains("[Service]") else {
      throw reader.error(unitNode, "the unit has no [Service] section")
    }
    spec.line = node.mark?.line ?? 0
    if let node = map["dropin"] { spec.dropin = try reader.string(node, what: "dropin") }
    if let node = map["users"] {
      spec.users = try reader.sequence(node, what: "users").map { node throws(ScenarioError) in
        let name = try reader.string(node, what: "users entry")
        guard !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }) else {
          throw reader.error(node, "a user name is letters, digits, '-' and '_', not '\(name)'")
        }
        return name
      }
    }
    if let node = map["boot_timeout"] { spec.bootTimeout = try reader.duration(node, what: "boot_timeout") }
    return spec
  }

  /// A launch's `start:`.
  static func start(_ node: Node, reader: NodeReader) throws(ScenarioError) -> SystemdStart {
    let text = try reader.string(node, what: "start")
    guard let start = SystemdStart(rawValue: text) else {
      let known = SystemdStart.allCases.map(\.rawValue).joined(separator: ", ")
      throw reader.error(node, "unknown start '\(text)' (known: \(known))")
    }
    return start
  }

  /// A launch's `systemctl: { command, after_event, signal }`.
  static func step(_ node: Node, reader: NodeReader) throws(ScenarioError) -> SystemctlStep {
    let map = try reader.mapping(node, keys: stepKeys, what: "systemctl")
    guard let commandNode = map["command"], let eventNode = map["after_event"] else {
      throw reader.error(node, "systemctl needs 'command' and 'after_event'")
    }
    let text = try reader.string(commandNode, what: "command")
    guard let command = SystemctlStep.Command(rawValue: text) else {
      let known = SystemctlStep.Command.allCases.map(\.rawValue).joined(separator: ", ")
      throw reader.error(commandNode, "unknown systemctl command '\(text)' (known: \(known))")
    }
    var step = SystemctlStep(command: command, afterEvent: try reader.string(eventNode, what: "after_event"))
    if let node = map["signal"] {
      guard command == .kill else { throw reader.error(node, "'signal' goes with command: kill") }
      step.signal = try reader.signal(node)
    }
    return step
  }

  /// `expect.systemd`.
  static func expectation(_ node: Node, reader: NodeReader) throws(ScenarioError) -> SystemdExpectation {
    let map = try reader.mapping(node, keys: expectationKeys, what: "systemd")
    var expect = SystemdExpectation()
    if let node = map["n_restarts"] { expect.nRestarts = try reader.integer(node, what: "n_restarts", minimum: 0) }
    if let node = map["result"] { expect.result = try reader.string(node, what: "result") }
    if let node = map["active_state"] { expect.activeState = try reader.string(node, what: "active_state") }
    if let node = map["sub_state"] { expect.subState = try reader.string(node, what: "sub_state") }
    if let node = map["exec_main_status"] {
      expect.execMainStatus = try reader.integer(node, what: "exec_main_status", minimum: 0)
    }
    if let node = map["status_text"] { expect.statusText = try reader.string(node, what: "status_text") }
    if let node = map["state_directory_mode"] {
      let text = try reader.string(node, what: "state_directory_mode")
      guard text.count == 4, text.hasPrefix("0"), let mode = Int(text, radix: 8) else {
        throw reader.error(node, "'state_directory_mode' is an octal mode like 0700, not '\(text)'")
      }
      expect.stateDirectoryMode = mode
    }
    return expect
  }

  /// `expect.started_at: { min, max }`: seconds from the first launch's `launch` event.
  static func startedAt(_ node: Node, reader: NodeReader) throws(ScenarioError) -> ClosedRange<Double> {
    let map = try reader.mapping(node, keys: startedAtKeys, what: "started_at")
    let low =
      try map["min"].map { node throws(ScenarioError) in
        try reader.duration(node, what: "min", zeroAllowed: true)
      } ?? 0
    let high = try map["max"].map { node throws(ScenarioError) in try reader.duration(node, what: "max") } ?? 3600
    guard low <= high else { throw reader.error(node, "'started_at': min is more than max") }
    return low...high
  }

  /// After a launch with a `power-cut`, the machine is down: the next launch must boot it.
  static func checkPowerCuts(_ launches: [LaunchSpec], reader: NodeReader) throws(ScenarioError) {
    for (index, launch) in launches.enumerated() where launch.systemctl?.command == .powerCut {
      guard index + 1 < launches.count else { continue }
      let next = launches[index + 1]
      guard next.systemdStart == .reboot else {
        throw ScenarioError(
          path: reader.path, line: next.line, column: 1,
          message: "the launch before cuts the power: this one needs 'start: reboot' (the machine is down)")
      }
    }
  }

  /// The scenario keys that real systemd cannot honour, refused where they are written.
  static func check(_ top: [String: Node], launches: [Node], reader: NodeReader) throws(ScenarioError) {
    for key in ["supervisor", "daemon", "container", "kubernetes", "runtime", "init", "memory", "pids"] {
      if let node = top[key] { throw reader.error(node, "'\(key)' cannot go with 'systemd' (systemd runs the unit)") }
    }
    for launch in launches {
      guard case .mapping(let mapping) = launch else { continue }
      for (key, value) in mapping {
        let name = key.scalar?.string ?? ""
        if ["parallel", "repeat", "send_signal", "user", "container", "runtime", "requests"].contains(name) {
          throw reader.error(value, "'\(name)' cannot go with 'systemd' (each launch is one start of the unit)")
        }
      }
    }
  }

  /// Without `systemd:`, a launch's `start:` or `systemctl:` and the systemd expectations mean nothing.
  static func checkNeedsSystemd(_ launches: [Node], reader: NodeReader) throws(ScenarioError) {
    func keys(_ node: Node?) -> [(String, Node)] {
      guard case .mapping(let mapping)? = node else { return [] }
      return mapping.map { ($0.key.scalar?.string ?? "", $0.value) }
    }
    for launch in launches {
      let fields = keys(launch)
      let expect = fields.first { $0.0 == "expect" }?.1
      for (name, value) in fields + keys(expect)
      where ["start", "systemctl", "systemd", "journal_contains", "journal_lacks", "started_at"].contains(name) {
        throw reader.error(value, "'\(name)' needs 'systemd:' at the top of the scenario (a real systemd)")
      }
    }
  }
}
