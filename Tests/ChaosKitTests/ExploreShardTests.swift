import Foundation
import TestSupport
import XCTest

@testable import ChaosKit

/// Scaling `chaos explore` out (issue 31): shards split one campaign's sequences exactly, the
/// shard comes from `--shard` or the CI engine's variables, and shards' failure stores merge.
final class ExploreShardTests: XCTestCase {
  /// 4 shards of one campaign generate exactly the sequences one unsharded run of the same
  /// seed does: each once, none twice.
  func testFourShardsCoverExactlyTheSequencesOfOneUnshardedRun() {
    let generator = SequenceGenerator(declared: ["task.ui", "launch.begin", "protect.begin", "life.*", "store.write"])
    let campaign = 37
    func sequences(shard: Int, of count: Int) -> [ExplorationSequence] {
      (0...).lazy.map { Explorer.campaignIndex($0, shardIndex: shard, shardCount: count) }
        .prefix { $0 < campaign }.map { generator.sequence(seed: 7, index: $0) }
    }
    let whole = sequences(shard: 0, of: 1)
    XCTAssertEqual(whole.count, campaign)
    let shards = (0..<4).map { sequences(shard: $0, of: 4) }
    XCTAssertEqual(shards.map(\.count), [10, 9, 9, 9])
    let pooled = shards.flatMap { $0 }.sorted { $0.seed < $1.seed }
    XCTAssertEqual(pooled, whole)
    XCTAssertEqual(Set(pooled.map(\.seed)).count, campaign, "no sequence in two shards")
  }

  /// The same, running the reference app: 4 shards of `--sequences 8` run 2 sequences each.
  func testShardedRunsSplitTheSequenceBudget() throws {
    var total = 0
    for shard in 0..<4 {
      var options = Explorer.Options(target: ScenarioCase.executable("chaos-target"))
      options.sequences = 8
      options.jobs = 1
      options.shardIndex = shard
      options.shardCount = 4
      options.outDirectory = NSTemporaryDirectory() + "shard-\(getpid())"
      let report = try Explorer(options: options).run()
      XCTAssertNil(report.failure, report.failure?.firstDifference ?? "")
      XCTAssertEqual(report.sequences, 2)
      XCTAssertEqual(report.shard, "\(shard + 1)/4")
      total += report.sequences
    }
    XCTAssertEqual(total, 8)
  }

  func testTheShardComesFromTheFlagThenBazelThenKubernetes() throws {
    let everything = [
      "TEST_SHARD_INDEX": "1", "TEST_TOTAL_SHARDS": "3", "JOB_COMPLETION_INDEX": "4",
      "CHAOS_EXPLORE_SHARDS": "8",
    ]
    XCTAssertEqual(
      try ExploreShard.resolve(flag: Shard("2/4"), shards: nil, environment: everything),
      ExploreShard(index: 1, count: 4, source: "--shard"))
    XCTAssertEqual(
      try ExploreShard.resolve(flag: nil, shards: nil, environment: everything),
      ExploreShard(index: 1, count: 3, source: "TEST_SHARD_INDEX"))
    XCTAssertEqual(
      try ExploreShard.resolve(flag: nil, shards: 6, environment: ["JOB_COMPLETION_INDEX": "5"]),
      ExploreShard(index: 5, count: 6, source: "JOB_COMPLETION_INDEX"))
    XCTAssertEqual(
      try ExploreShard.resolve(
        flag: nil, shards: nil, environment: ["JOB_COMPLETION_INDEX": "4", "CHAOS_EXPLORE_SHARDS": "8"]),
      ExploreShard(index: 4, count: 8, source: "JOB_COMPLETION_INDEX"))
  }

  func testBadShardsAreUsageErrors() {
    for flag in ["0/4", "5/4", "1", "a/b", "1/0", "-1/4", "2/4/8", "2//4", "/4", "2/", " 2/4", ""] {
      XCTAssertNil(Shard(flag), flag)
    }
    XCTAssertEqual(Shard("2/4"), Shard(number: 2, count: 4))
    XCTAssertEqual(Shard("1/1")?.index, 0)
    XCTAssertEqual(Shard("4/4")?.index, 3)
    XCTAssertThrowsError(
      try ExploreShard.resolve(flag: nil, shards: nil, environment: ["JOB_COMPLETION_INDEX": "0"]),
      "a Kubernetes index needs a total")
    XCTAssertThrowsError(
      try ExploreShard.resolve(flag: nil, shards: 2, environment: ["JOB_COMPLETION_INDEX": "2"]))
    XCTAssertNil(try ExploreShard.resolve(flag: nil, shards: nil, environment: [:]))
  }

  /// Both commands read `--shard` with the one `Shard` type: a bad one is a usage error (exit
  /// 2) from the real binary, as is a `--time` that is not a duration more than 0.
  func testBadShardsAndTimesAreUsageErrorsOfBothCommands() {
    for arguments in [
      ["run", "--shard", "0/4"], ["run", "--shard", "5/4"], ["explore", "--shard", "0/4"],
      ["explore", "--shard", "2/4/8"], ["explore", "--time", "0s"], ["explore", "--time", "inf"],
    ] {
      let status = ChildProcess.run(ChildProcess.product("chaos"), arguments: arguments, environment: [:])
      XCTAssertEqual(status, .exited(2), arguments.joined(separator: " "))
    }
  }

  func testTheStoreKeyIsWhatDivergedWithoutTheLaunchNumber() {
    let a = FailureStore.key(kind: .count, difference: "launch 3: expected count 0, saw 1")
    let b = FailureStore.key(kind: .count, difference: "launch 7: expected count 0, saw 1")
    XCTAssertEqual(a, b)
    XCTAssertTrue(a.hasPrefix("expected-count-0-saw-1-"), a)
    XCTAssertNotEqual(a, FailureStore.key(kind: .count, difference: "launch 3: expected count 1, saw 2"))
  }

  /// `chaos explore merge`: each key once, the smallest scenario kept, its target renamed from
  /// the merged store's folder.
  func testMergingStoresKeepsTheSmallestScenarioPerKey() throws {
    let folder = TemporaryDirectory("merge")
    func scenario(launches: Int) -> String {
      "name: x\ntarget: \"../bin/app\"\nlaunches:\n" + String(repeating: "  - expect: {}\n", count: launches)
    }
    FailureStore.add(scenario(launches: 3), key: "expected-count", launches: 3, to: folder.file("shard-1"))
    FailureStore.add(scenario(launches: 2), key: "expected-count", launches: 2, to: folder.file("shard-2"))
    FailureStore.add(scenario(launches: 4), key: "expected-mode", launches: 4, to: folder.file("shard-2"))
    // Adding a larger scenario under a key keeps the smaller one.
    FailureStore.add(scenario(launches: 5), key: "expected-mode", launches: 5, to: folder.file("shard-2"))
    let entries = FailureStore.merge(
      [folder.file("shard-1"), folder.file("shard-2")], into: folder.file("merged/store"))
    XCTAssertEqual(entries.map(\.name), ["expected-count.yaml", "expected-mode.yaml"])
    XCTAssertEqual(entries.map(\.launches), [2, 4])
    XCTAssertEqual(entries.map(\.sources.count), [2, 1])
    let merged = try String(contentsOfFile: folder.file("merged/store/expected-count.yaml"), encoding: .utf8)
    XCTAssertEqual(FailureStore.launches(in: merged), 2)
    XCTAssertTrue(merged.contains("target: \"../../bin/app\""), merged)
  }
}
