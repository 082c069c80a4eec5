import ArgumentParser
import Foundation

/// The `chaos` command line: proves launch-crash protection with real crashes.
@main
struct Chaos: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "chaos",
    abstract: "Fault-injection harness and chaos suite for launch-crash protection.",
    subcommands: [
      RunCommand.self, ListCommand.self, ValidateCommand.self, ExploreCommand.self, SymbolizeCommand.self,
      BenchCommand.self,
    ],
    defaultSubcommand: nil)

  /// ArgumentParser's own entry point, except that a usage error (unknown option, bad value,
  /// failed validation) exits 2 as "Writing scenarios" (ChaosKit's documentation) says, not EX_USAGE (64).
  static func main() {
    do {
      var command = try parseAsRoot()
      try command.run()
    } catch {
      if exitCode(for: error) == .validationFailure {
        FileHandle.standardError.write(Data((fullMessage(for: error) + "\n").utf8))
        Foundation.exit(2)
      }
      exit(withError: error)
    }
  }
}
