import Foundation
import Hummingbird
import HummingbirdTesting
import LaunchProtectionServer
import Testing

@testable import hbkv

/// hbkv built in parallel tests, as an app team's own suite builds its server: each test makes
/// its own `ServerLaunch` (several at once in this process), on a directory of its own.
/// CI/test runs this suite 50 times (`--filter AppTests`: the scenarios run once, elsewhere).
@Suite struct AppTests {
  @Test func dataIsServedOnlyOnceTheLaunchFinished() async throws {
    try await withTestDirectory { directory in
      let server = try await TestServer(in: directory)
      try await server.app.test(.router) { client in
        try await client.execute(uri: "/kv/greeting", method: .get) { response in
          #expect(response.status == .serviceUnavailable, "launching")
        }
        try await client.execute(uri: "/ready", method: .get) { response in
          #expect(response.status == .serviceUnavailable)
          #expect(String(buffer: response.body).hasPrefix("launching: normal, count 0"))
        }
        // `.router` never calls onServerRunning: the test says where its launch ends.
        await server.launch.markLaunchingFinished()
        try await client.execute(uri: "/ready", method: .get) { response in
          #expect(response.status == .ok)
        }
      }
    }
  }

  @Test func aValuePutIsReadBack() async throws {
    try await withTestDirectory { directory in
      let server = try await TestServer(in: directory)
      try await server.app.test(.router) { client in
        await server.launch.markLaunchingFinished()
        try await client.execute(uri: "/kv/greeting", method: .put, body: ByteBuffer(string: "hello")) { response in
          #expect(response.status == .noContent)
        }
        try await client.execute(uri: "/kv/greeting", method: .get) { response in
          #expect(String(buffer: response.body) == "hello\n")
        }
      }
    }
  }

  @Test func aKeyWithAnEqualsSignIsRefused() async throws {
    try await withTestDirectory { directory in
      let server = try await TestServer(in: directory)
      try await server.app.test(.router) { client in
        await server.launch.markLaunchingFinished()
        try await client.execute(uri: "/kv/a=b", method: .put, body: ByteBuffer(string: "x")) { response in
          #expect(response.status == .badRequest)
        }
      }
    }
  }

  @Test func theLiveServerFinishesTheLaunchOnceItListens() async throws {
    try await withTestDirectory { directory in
      let server = try await TestServer(in: directory)
      try await server.app.test(.live) { client in
        try await client.execute(uri: "/kv/greeting", method: .put, body: ByteBuffer(string: "live")) { response in
          #expect(response.status == .noContent, "`.live` ran onServerRunning, so the launch finished")
        }
      }
      #expect(server.launch.status.launchFinished)
    }
  }

  @Test func aTestThatEndsDuringTheLaunchLeavesAStopNotACrash() async throws {
    try await withTestDirectory { directory in
      let server = try await TestServer(in: directory)
      try await server.app.test(.router) { _ in }
      // The group's graceful shutdown reached ServerLaunch's run(): a stop, never counted.
      let state = try #require(try StateStore(directory: directory + "/data/launch").read())
      #expect(state.launchesInProgress.map { $0.stopRequestDate != nil } == [true])
      #expect(state.consecutiveCrashes == 0)
    }
  }

  /// Eight servers at once, each with its own data: none sees another's keys.
  @Test(arguments: 1...8) func eachServerKeepsItsOwnData(_ number: Int) async throws {
    try await withTestDirectory { directory in
      let server = try await TestServer(in: directory)
      try await server.app.test(.router) { client in
        await server.launch.markLaunchingFinished()
        try await client.execute(uri: "/kv/key\(number)", method: .put, body: ByteBuffer(string: "\(number)")) { _ in }
        try await client.execute(uri: "/kv/key\(number % 8 + 1)", method: .get) { response in
          #expect(response.status == .notFound, "another test's key")
        }
        try await client.execute(uri: "/kv/key\(number)", method: .get) { response in
          #expect(String(buffer: response.body) == "\(number)\n")
        }
      }
      let data = try String(contentsOfFile: directory + "/data/store.kv", encoding: .utf8)
      #expect(data == "key\(number)=\(number)\n")
    }
  }
}
