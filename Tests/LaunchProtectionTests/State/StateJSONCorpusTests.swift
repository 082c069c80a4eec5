import Failpoints
import Foundation
import XCTest

@testable import LaunchProtection

/// Every seed and regression of the state-file fuzzer decodes as `JSONDecoder` decodes it:
/// the same state, or a failure for both.
final class StateJSONCorpusTests: XCTestCase {
  func testTheFuzzCorpusDecodesAsFoundationDecodesIt() throws {
    // Tests/LaunchProtectionTests/State/this file → the package root's Fuzz/.
    let fuzz = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fuzz")
    var compared = 0
    for folder in ["Corpus/fuzz-state-file", "Regressions/fuzz-state-file"] {
      let directory = fuzz.appendingPathComponent(folder)
      guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path) else { continue }
      for name in names.sorted() {
        var bytes = Array(try Data(contentsOf: directory.appendingPathComponent(name)))
        if StateFileFormat.isSlotted(bytes) {
          guard case .success(let decoded) = StateFileFormat.decodeSlots(bytes) else { continue }
          bytes = decoded.stateJSON
        }
        let foundation = try? JSONDecoder().decode(LaunchState.self, from: Data(bytes))
        let ours = try? StateJSON.Document(bytes).state()
        XCTAssertEqual(ours, foundation, "\(folder)/\(name): \(String(decoding: bytes.prefix(200), as: UTF8.self))")
        compared += 1
      }
    }
    XCTAssertGreaterThan(compared, 0)
  }

  func testMutatedStatesDecodeAsFoundationDecodesThem() throws {
    // Seeded byte edits of real state JSON (flips, deletions, insertions of JSON's own
    // characters): whatever JSONDecoder accepted, this codec accepts as the same state, and
    // whatever it rejected, this codec rejects. Two quirks of JSONDecoder are not copied (150 000
    // rounds found 4 such inputs, none in these 10 000): it reads a UInt64 written with more
    // digits than a Double holds and a fraction (184467440737095516.15) by dropping the
    // fraction, which this codec rejects as not a whole number; it rejects the Double `0E1`
    // (not `0E+1` or `-0E1`), which this codec reads as 0.
    let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().appendingPathComponent("Fixtures/state-files")
    var seeds: [[UInt8]] = []
    for name in try FileManager.default.contentsOfDirectory(atPath: fixtures.path).sorted() {
      let bytes = Array(try Data(contentsOf: fixtures.appendingPathComponent(name)))
      if case .success(let decoded) = StateFileFormat.decodeSlots(bytes) { seeds.append(decoded.stateJSON) }
    }
    let alphabet = Array(#"{}[]:,"\ -+.eE0123456789tfnulrsaAZ/"#.utf8) + [0x00, 0x1F, 0x7F, 0xC3, 0xA9, 0xFF]
    var seed: UInt64 = 0x5EED
    func next() -> Int {
      seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      return Int(truncatingIfNeeded: seed >> 33)
    }
    var accepted = 0
    for round in 0..<10_000 {
      var bytes = seeds[round % seeds.count]
      for _ in 0...(next() % 3) {
        let index = next() % bytes.count
        switch next() % 3 {
        case 0: bytes[index] = alphabet[next() % alphabet.count]
        case 1: bytes.remove(at: index)
        default: bytes.insert(alphabet[next() % alphabet.count], at: index)
        }
      }
      let foundation = try? JSONDecoder().decode(LaunchState.self, from: Data(bytes))
      let ours = try? StateJSON.Document(bytes).state()
      if foundation != nil { accepted += 1 }
      XCTAssertEqual(ours, foundation, "round \(round): \(String(decoding: bytes, as: UTF8.self))")
    }
    XCTAssertGreaterThan(accepted, 1000, "enough mutations still decode")
  }
}
