import Foundation
import Hummingbird
import HummingbirdTesting
import LaunchProtectionServer
import Testing

@testable import quickstart

/// The README's server, built in parallel tests as an app team's own suite builds it: every test
/// makes its own `ServerLaunch` (so several are made at once in this process), each on a state
/// directory of its own. CI/test runs this suite 50 times.
@Suite struct QuickStartTests {
  @Test func healthAnswersWhileTheLaunchIsUnfinished() async throws {
    try await withTestDirectory { directory in
      let built = try await TestApplication(in: directory)
      try await built.app.test(.router) { client in
        try await client.execute(uri: "/health", method: .get) { response in
          #expect(response.status == .ok)
          #expect(String(buffer: response.body) == "ok\n")
        }
        // `.router` never calls onServerRunning: the launch is still running.
        #expect(!built.protection.status.launchFinished)
      }
    }
  }

  @Test func readyReportsAFreshCountOnAStateDirectoryOfItsOwn() async throws {
    try await withTestDirectory { directory in
      let built = try await TestApplication(in: directory)
      try await built.app.test(.router) { client in
        try await client.execute(uri: "/ready", method: .get) { response in
          #expect(response.status == .ok)
          #expect(String(buffer: response.body).hasPrefix("normal, count 0"))
        }
      }
      #expect(built.protection.status.count == 0)
      #expect(FileManager.default.fileExists(atPath: directory + "/launch/launch-state.json"))
    }
  }

  @Test func markingTheLaunchFinishedIsWhatOnServerRunningDoes() async throws {
    try await withTestDirectory { directory in
      let built = try await TestApplication(in: directory)
      try await built.app.test(.router) { client in
        await built.protection.markLaunchingFinished()
        #expect(built.protection.status.launchFinished)
        try await client.execute(uri: "/ready", method: .get) { response in
          #expect(String(buffer: response.body).hasPrefix("finished"))
        }
      }
    }
  }

  @Test func theLiveServerFinishesTheLaunchOnceItListens() async throws {
    try await withTestDirectory { directory in
      let built = try await TestApplication(in: directory)
      try await built.app.test(.live) { client in
        try await client.execute(uri: "/health", method: .get) { response in
          #expect(response.status == .ok)
        }
        #expect(built.protection.status.launchFinished, "`.live` runs onServerRunning")
      }
    }
  }

  @Test func buildingTheApplicationWritesNothingInTheWorkingDirectory() async throws {
    let manager = FileManager.default
    let before = try manager.contentsOfDirectory(atPath: manager.currentDirectoryPath)
    try await withTestDirectory { directory in
      let built = try await TestApplication(in: directory)
      try await built.app.test(.router) { _ in }
    }
    let after = try manager.contentsOfDirectory(atPath: manager.currentDirectoryPath)
    #expect(Set(after) == Set(before))
  }

  /// Eight applications at once, each serving the cache of its own directory: no test sees
  /// another's state or data.
  @Test(arguments: 1...8) func eachApplicationServesItsOwnCache(_ number: Int) async throws {
    try await withTestDirectory { directory in
      try "todo \(number)\n".write(toFile: directory + "/todos.cache", atomically: true, encoding: .utf8)
      let built = try await TestApplication(in: directory)
      try await built.app.test(.router) { client in
        try await client.execute(uri: "/todos", method: .get) { response in
          #expect(String(buffer: response.body) == "todo \(number)\n")
        }
      }
      #expect(built.protection.status.count == 0)
    }
  }
}
