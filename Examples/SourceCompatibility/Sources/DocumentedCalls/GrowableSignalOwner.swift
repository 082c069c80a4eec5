import LaunchProtection

// StopSignalReport.Owner became a growable struct (issue 53): what a 0.2.0 caller wrote that
// still compiles, and the way to read an owner from 1.0 on.

/// 0.2.0: owners built and compared by their case names; a signalfd owner's descriptor.
func describeOwner(_ report: StopSignalReport) -> String {
  let built: [StopSignalReport.Owner] = [.ignored, .dispatchSource, .handler, .signalfd(descriptor: 3)]
  if report.owner == .handler || built.contains(report.owner) { return report.advice }
  if case .dispatchSource = report.owner { return "dispatch" }
  // 1.0: the descriptor of a signalfd owner, then the name with a default.
  if let descriptor = report.owner.descriptor { return "signalfd \(descriptor)" }
  switch report.owner.name {
  case "ignored": return "ignored"
  default: return report.owner.description
  }
}
