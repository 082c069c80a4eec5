/// `--shard i/n`, as `chaos run` and `chaos explore` take it: shard i of n, i from 1 to n.
package struct Shard: Sendable, Equatable {
  /// Which shard, 1-based as the command line writes it (1...count).
  package var number: Int
  /// How many shards.
  package var count: Int

  /// 0-based (`number - 1`).
  package var index: Int { number - 1 }

  /// Shard `number` (1-based) of `count`.
  package init?(number: Int, count: Int) {
    guard count >= 1, (1...count).contains(number) else { return nil }
    self.number = number
    self.count = count
  }

  /// `i/n` with 1 ≤ i ≤ n (`2/4`); nil otherwise.
  package init?(_ text: String) {
    let parts = text.split(separator: "/", omittingEmptySubsequences: false)
    guard parts.count == 2, let number = Int(parts[0]), let count = Int(parts[1]) else { return nil }
    self.init(number: number, count: count)
  }
}
