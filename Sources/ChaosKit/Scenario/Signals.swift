import Foundation

/// Signal names and numbers as scenarios write them (`SIGSEGV` or `SEGV`).
package enum Signals {
  static let table: [(String, Int32)] = [
    ("SIGHUP", SIGHUP), ("SIGINT", SIGINT), ("SIGQUIT", SIGQUIT), ("SIGILL", SIGILL), ("SIGTRAP", SIGTRAP),
    ("SIGABRT", SIGABRT), ("SIGBUS", SIGBUS), ("SIGFPE", SIGFPE), ("SIGKILL", SIGKILL), ("SIGUSR1", SIGUSR1),
    ("SIGSEGV", SIGSEGV), ("SIGUSR2", SIGUSR2), ("SIGPIPE", SIGPIPE), ("SIGALRM", SIGALRM), ("SIGTERM", SIGTERM),
    ("SIGSYS", SIGSYS),
  ]

  /// The number of a signal name; nil when unknown.
  package static func number(_ name: String) -> Int32? {
    let upper = name.uppercased()
    let full = upper.hasPrefix("SIG") ? upper : "SIG" + upper
    return table.first { $0.0 == full }?.1
  }

  /// The name of a signal number.
  package static func name(_ number: Int32) -> String {
    table.first { $0.1 == number }?.0 ?? "signal \(number)"
  }

  /// Every known name.
  package static var names: [String] { table.map(\.0) }
}
