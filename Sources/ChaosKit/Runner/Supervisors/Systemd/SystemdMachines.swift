import Foundation
import Synchronization

/// Every throwaway systemd the harness booted and has not stopped, so an interrupt kills them
/// all; and the sweep of those a dead harness left behind.
final class SystemdMachines: Sendable {
  /// The process-wide registry.
  static let shared = SystemdMachines()

  private struct State {
    var machines: [ObjectIdentifier: SystemdMachine] = [:]
    var cancelled = false
  }

  private let state = Mutex(State())

  /// Records a machine before it boots; false once cancelled (it must not boot).
  func add(_ machine: SystemdMachine) -> Bool {
    state.withLock { state in
      guard !state.cancelled else { return false }
      state.machines[ObjectIdentifier(machine)] = machine
      return true
    }
  }

  /// Forgets a stopped machine.
  func remove(_ machine: SystemdMachine) {
    _ = state.withLock { $0.machines.removeValue(forKey: ObjectIdentifier(machine)) }
  }

  /// Kills every machine (an interrupt), and refuses new ones.
  func killAll() {
    let machines = state.withLock { state in
      state.cancelled = true
      return Array(state.machines.values)
    }
    for machine in machines { machine.kill() }
  }

  /// The machine id in `pid`'s command line (`systemd.unit=<id>.target` of a container's
  /// PID 1 that the harness booted), or nil.
  static func bootTarget(of pid: pid_t) -> String? {
    guard let data = readProcFile("/proc/\(pid)/cmdline") else { return nil }
    for argument in data.split(separator: 0).map({ String(decoding: $0, as: UTF8.self) })
    where argument.hasPrefix("systemd.unit=chaos-") && argument.hasSuffix(".target") {
      return String(argument.dropFirst("systemd.unit=".count).dropLast(".target".count))
    }
    return nil
  }

  /// Done once per harness process, before its first machine: SIGKILLs the containers whose
  /// harness is gone (a harness SIGKILLed takes nspawn with it, not the container's PID 1).
  static let swept: [String] = {
    let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
    var killed: [String] = []
    for entry in entries {
      guard let pid = pid_t(entry), let id = bootTarget(of: pid) else { continue }
      let parts = id.split(separator: "-")
      guard parts.count == 3, let harness = pid_t(parts[1]), harness != getpid(), kill(harness, 0) != 0,
        errno == ESRCH
      else { continue }
      kill(pid, SIGKILL)
      killed.append(id)
    }
    return killed
  }()

  /// A /proc file's bytes, read to the end: such files report size 0, so a read by size gets nothing.
  static func readProcFile(_ path: String) -> [UInt8]? {
    guard let file = fopen(path, "r") else { return nil }
    defer { fclose(file) }
    var bytes = [UInt8]()
    var buffer = [UInt8](repeating: 0, count: 65536)
    while case let count = fread(&buffer, 1, buffer.count, file), count > 0 { bytes += buffer[0..<count] }
    return bytes
  }
}
