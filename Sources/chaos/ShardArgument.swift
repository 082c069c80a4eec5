import ArgumentParser
import ChaosKit

/// `--shard i/n` for `chaos run` and `chaos explore` alike: one grammar (`Shard`), 1-based on
/// the command line; a bad value is a usage error (exit 2) that shows the option's help.
extension Shard: ExpressibleByArgument {
  /// `i/n` with 1 ≤ i ≤ n.
  package init?(argument: String) { self.init(argument) }
}
