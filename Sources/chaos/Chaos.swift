import ArgumentParser

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
}
