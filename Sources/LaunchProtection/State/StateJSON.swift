/// The state's JSON, written and read by hand: the launch path's codec.
///
/// Foundation's `JSONEncoder`/`JSONDecoder` cost about three quarters of the instructions of a
/// launch's two state updates, and their first use in a process instantiates generic metadata
/// for every `Codable` type (the larger part of a fresh process's first launch). This codec
/// writes the bytes `JSONEncoder` with `.sortedKeys` wrote (same keys, same order, same
/// escapes, numbers in the same form), so files stay what `cat` and `jq` read and what older
/// versions of the library decode; it reads what `JSONDecoder` read into these types —
/// whitespace, escapes, unknown keys, integers written `3.0`, and `JSONDecoder`'s leniencies
/// (a trailing comma; the first of repeated keys; string and number contents checked only
/// where a field is read) — and rejects the rest with the same kinds of problem the store
/// reported before (not JSON, a missing field, a wrong type).
package enum StateJSON {
  // MARK: Writing

  /// The state as one line of JSON with sorted keys (equal states are equal bytes).
  static func encode(_ state: LaunchState) -> [UInt8] {
    var out = Writer()
    out.bytes.reserveCapacity(
      256 + state.launchesInProgress.count * 256 + (state.lastCrashCause?.detail?.utf8.count ?? 0))
    out.open()
    if let level = state.attemptedProtectLevel {
      out.key("attemptedProtectLevel", first: true)
      out.integer(Int64(level))
    }
    out.key("consecutiveCrashes", first: state.attemptedProtectLevel == nil)
    out.integer(Int64(state.consecutiveCrashes))
    if let executableID = state.executableID {
      out.key("executableID")
      out.string(executableID)
    }
    if let cause = state.lastCrashCause {
      out.key("lastCrashCause")
      out.open()
      out.key("afterLaunch", first: true)
      out.boolean(cause.afterLaunch)
      if let detail = cause.detail {
        out.key("detail")
        out.string(detail)
      }
      if let pid = cause.pid {
        out.key("pid")
        out.integer(Int64(pid))
      }
      out.key("recordedAt")
      out.double(cause.recordedSeconds)
      out.key("type")
      out.string(cause.type)
      out.close()
    }
    if let outage = state.lastDependencyOutage {
      out.key("lastDependencyOutage")
      out.open()
      out.key("decidedAt", first: true)
      out.double(outage.decidedSeconds)
      out.key("dependency")
      out.string(outage.dependency)
      if let first = outage.firstDecidedSeconds {
        out.key("firstDecidedAt")
        out.double(first)
      }
      out.key("launchesInARow")
      out.integer(Int64(outage.launchesInARow))
      out.key("pid")
      out.integer(Int64(outage.pid))
      out.close()
    }
    if let exit = state.lastUncountedExit {
      out.key("lastUncountedExit")
      out.open()
      out.key("decidedAt", first: true)
      out.double(exit.decidedSeconds)
      out.key("pid")
      out.integer(Int64(exit.pid))
      out.key("reason")
      out.string(exit.reason.rawValue)
      out.close()
    }
    out.key("launchesInProgress")
    out.bytes.append(UInt8(ascii: "["))
    // Indices, not `enumerated()`: its element tuple's metadata costs a fresh process's first write.
    for index in state.launchesInProgress.indices {
      let record = state.launchesInProgress[index]
      if index > 0 { out.bytes.append(UInt8(ascii: ",")) }
      out.open()
      out.key("launchID", first: true)
      out.string(record.launchID)
      out.key("phase")
      out.string(record.phase.rawValue)
      out.key("process")
      out.open()
      out.key("bootID", first: true)
      out.string(record.process.bootID)
      if let machine = record.process.machine {
        out.key("machine")
        out.string(machine)
      }
      out.key("pid")
      out.integer(Int64(record.process.pid))
      out.key("startTime")
      out.unsigned(record.process.startTime)
      out.close()
      out.key("startedAt")
      out.double(record.startedSeconds)
      if let stop = record.stopRequestedSeconds {
        out.key("stopRequestedAt")
        out.double(stop)
      }
      if let dependency = record.waitingFor {
        out.key("waitingFor")
        out.string(dependency)
      }
      out.close()
    }
    out.bytes.append(UInt8(ascii: "]"))
    out.key("version")
    out.integer(Int64(state.version))
    out.close()
    return out.bytes
  }

  private struct Writer {
    var bytes: [UInt8] = []

    mutating func open() { bytes.append(UInt8(ascii: "{")) }
    mutating func close() { bytes.append(UInt8(ascii: "}")) }

    /// `"name":`, after a comma unless it is the object's first member. Keys are ASCII
    /// identifiers: nothing to escape.
    mutating func key(_ name: StaticString, first: Bool = false) {
      if !first { bytes.append(UInt8(ascii: ",")) }
      bytes.append(UInt8(ascii: "\""))
      name.withUTF8Buffer { bytes.append(contentsOf: $0) }
      bytes.append(UInt8(ascii: "\""))
      bytes.append(UInt8(ascii: ":"))
    }

    mutating func boolean(_ value: Bool) {
      bytes.append(contentsOf: value ? Self.trueBytes : Self.falseBytes)
    }
    private static let trueBytes = Array("true".utf8)
    private static let falseBytes = Array("false".utf8)

    mutating func integer(_ value: Int64) {
      if value < 0 { bytes.append(UInt8(ascii: "-")) }
      unsigned(value.magnitude)
    }

    mutating func unsigned(_ value: UInt64) {
      var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes on the stack: UInt64.max has 20 digits
      withUnsafeMutableBytes(of: &digits) { buffer in
        var index = 0
        var rest = value
        repeat {
          buffer[index] = UInt8(ascii: "0") + UInt8(rest % 10)
          rest /= 10
          index += 1
        } while rest > 0
        while index > 0 {
          index -= 1
          bytes.append(buffer[index])
        }
      }
    }

    /// Swift's shortest representation that reads back as the same `Double` (what
    /// `JSONEncoder` writes too: `1764000000.25`, `1700000000` without `.0`, `1e-06`).
    /// Not finite (which no clock gives): `null`, which the next read reports as a wrong type
    /// (`JSONEncoder` failed to encode such a state, leaving an empty, corrupt slot).
    mutating func double(_ value: Double) {
      guard value.isFinite else {
        bytes.append(contentsOf: Array("null".utf8))
        return
      }
      var text = value.description
      if text.hasSuffix(".0") { text.removeLast(2) }
      bytes.append(contentsOf: text.utf8)
    }

    /// A JSON string, escaped by the one escaper (`StateJSON.appendString`).
    mutating func string(_ value: String) { StateJSON.appendString(value, to: &bytes) }
  }
}
