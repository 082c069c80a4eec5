import ArgumentParser
import ChaosKit
import Foundation

/// `chaos explore merge`: pools the failure stores of a sharded campaign.
struct ExploreMergeCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "merge",
    abstract: "Merge failure stores (--store) of explore shards into one, and report what they hold.",
    discussion: """
      Keeps the smallest scenario for each kind of divergence (the file name is its key); a \\
      relative target is renamed from the new folder. Exit status: 0 the stores hold no \\
      failure, 1 they do (each is listed), 2 usage errors.

      Example:
        chaos explore merge shard-1/ shard-2/ shard-3/ shard-4/ --into explore-store
      """)

  @Argument(help: "The stores to merge (folders of scenarios).")
  var stores: [String]

  @Option(help: "Where the merged store is written (created if needed).")
  var into = "chaos-explore-store"

  func validate() throws {
    if stores.isEmpty { throw ValidationError("give at least one store folder") }
    var isFolder: ObjCBool = false
    if let missing = stores.first(where: { !FileManager.default.fileExists(atPath: $0, isDirectory: &isFolder) }) {
      throw ValidationError("no such store folder: \(missing)")
    }
  }

  func run() throws {
    let destination = URL(fileURLWithPath: into).standardizedFileURL.path
    let entries = FailureStore.merge(
      stores.map { URL(fileURLWithPath: $0).standardizedFileURL.path }, into: destination)
    print("chaos explore merge: \(stores.count) stores into \(destination)")
    for entry in entries {
      print("  \(entry.name): \(entry.launches) launches, found by \(entry.sources.count) of \(stores.count) stores")
    }
    print("explore merge: \(entries.count) failures stored")
    if !entries.isEmpty { throw ExitCode(1) }
  }
}
