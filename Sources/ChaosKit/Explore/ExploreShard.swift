/// Which shard of a campaign this run explores: `--shard i/n`, else Bazel's
/// `TEST_SHARD_INDEX`/`TEST_TOTAL_SHARDS`, else a Kubernetes Indexed Job's
/// `JOB_COMPLETION_INDEX` with the total from `--shards` (or `CHAOS_EXPLORE_SHARDS`).
package struct ExploreShard: Sendable, Equatable {
  /// 0-based.
  package var index: Int
  /// Shards in the campaign.
  package var count: Int
  /// Where it came from, for the report.
  package var source: String

  /// Why no shard could be read.
  package struct Failure: Error, CustomStringConvertible {
    /// What was wrong.
    package var description: String
  }

  /// Resolves the shard; nil: the whole campaign. `flag` is `--shard`, already read (`Shard`).
  package static func resolve(flag: Shard?, shards: Int?, environment: [String: String]) throws(Failure)
    -> ExploreShard?
  {
    if let flag { return ExploreShard(index: flag.index, count: flag.count, source: "--shard") }
    if let index = environment["TEST_SHARD_INDEX"].flatMap(Int.init),
      let count = environment["TEST_TOTAL_SHARDS"].flatMap(Int.init)
    {
      guard count >= 1, (0..<count).contains(index) else {
        throw Failure(description: "TEST_SHARD_INDEX=\(index) is not below TEST_TOTAL_SHARDS=\(count)")
      }
      return ExploreShard(index: index, count: count, source: "TEST_SHARD_INDEX")
    }
    if let index = environment["JOB_COMPLETION_INDEX"].flatMap(Int.init) {
      guard let count = shards ?? environment["CHAOS_EXPLORE_SHARDS"].flatMap(Int.init) else {
        throw Failure(
          description:
            "JOB_COMPLETION_INDEX=\(index) is set: give the total with --shards N (the Job's completions) or CHAOS_EXPLORE_SHARDS"
        )
      }
      guard count >= 1, (0..<count).contains(index) else {
        throw Failure(description: "JOB_COMPLETION_INDEX=\(index) is not below the \(count) shards")
      }
      return ExploreShard(index: index, count: count, source: "JOB_COMPLETION_INDEX")
    }
    return nil
  }
}
