import Foundation

/// The bytes of the state file: two fixed-size slots, each a checksummed, sequence-numbered
/// copy of the state (as LMDB's two meta pages). An update rewrites the older slot in place, so
/// a write torn by a power cut damages only that slot and the reader falls back to the other.
///
/// Each slot is one line of JSON padded with spaces to the slot size, so `cat` and `jq` still
/// read the file (two objects; the one with the higher `seq` is the state):
///
///     {"slot":"launch-state","seq":"0000000000000007","len":"0000000312","crc":"1a2b3c4d","state":{…}}
///
/// A file holding a bare `LaunchState` JSON object (written by version 1 of this library, or
/// by a tool) is read as well; the next update converts it.
enum StateFileFormat {
  /// The smallest slot; slots grow in powers of two when a state does not fit.
  static let minimumSlotSize = 4096

  /// Where the next in-place write can go.
  enum Layout: Equatable {
    /// No file, a bare JSON file, or one that was moved aside: the next write creates the file.
    case none
    /// Two slots of `slotSize` bytes; `newest` (0 or 1) holds sequence number `sequence`.
    case slots(slotSize: Int, newest: Int, sequence: UInt64)
  }

  /// Why a slotted file holds no usable state.
  struct Damage: Error {
    var detail: String
  }

  /// What a read found.
  struct Decoded {
    var stateJSON: [UInt8]
    var layout: Layout
  }

  private static let prefix = Array(#"{"slot":"launch-state","seq":""#.utf8)
  private static let lengthKey = Array(#"","len":""#.utf8)
  private static let checksumKey = Array(#"","crc":""#.utf8)
  private static let stateKey = Array(#"","state":"#.utf8)
  private static let sequenceDigits = 16
  private static let lengthDigits = 10
  private static let checksumDigits = 8
  static let headerLength =
    prefix.count + sequenceDigits + lengthKey.count + lengthDigits + checksumKey.count + checksumDigits
    + stateKey.count

  /// Whether `bytes` start like a slotted file (otherwise they are read as bare JSON).
  static func isSlotted(_ bytes: [UInt8]) -> Bool { bytes.starts(with: prefix) }

  /// The newest valid slot's state JSON, or a reason why there is none.
  static func decodeSlots(_ bytes: [UInt8]) -> Result<Decoded, Damage> {
    guard bytes.count % 2 == 0, bytes.count >= 2 * minimumSlotSize else {
      return .failure(
        Damage(
          detail: "slotted state file of \(bytes.count) bytes (expected two equal slots of at least \(minimumSlotSize))"
        ))
    }
    let slotSize = bytes.count / 2
    var best: (index: Int, sequence: UInt64, json: [UInt8])?
    for index in 0..<2 {
      let slot = bytes[(index * slotSize)..<((index + 1) * slotSize)]
      guard let (sequence, json) = parseSlot(Array(slot)) else { continue }
      if best == nil || sequence > best!.sequence { best = (index, sequence, json) }
    }
    guard let best else { return .failure(Damage(detail: "neither of the two state slots is whole (torn or damaged)")) }
    return .success(
      Decoded(stateJSON: best.json, layout: .slots(slotSize: slotSize, newest: best.index, sequence: best.sequence)))
  }

  /// One slot's sequence number and state JSON, when its header parses and its checksum matches.
  private static func parseSlot(_ slot: [UInt8]) -> (UInt64, [UInt8])? {
    guard slot.count > headerLength + 1, slot.starts(with: prefix) else { return nil }
    var offset = prefix.count
    func field(_ digits: Int, radix: Int, then key: [UInt8]) -> UInt64? {
      let text = slot[offset..<(offset + digits)]
      guard text.allSatisfy({ radix == 16 ? isHexDigit($0) : isDecimalDigit($0) }),
        let value = UInt64(String(decoding: text, as: UTF8.self), radix: radix),
        slot[(offset + digits)...].starts(with: key)
      else { return nil }
      offset += digits + key.count
      return value
    }
    guard let sequence = field(sequenceDigits, radix: 10, then: lengthKey),
      let length = field(lengthDigits, radix: 10, then: checksumKey),
      let checksum = field(checksumDigits, radix: 16, then: stateKey),
      length <= UInt64(slot.count - headerLength - 1)
    else { return nil }
    let end = headerLength + Int(length)
    guard slot[end] == UInt8(ascii: "}") else { return nil }
    let json = Array(slot[headerLength..<end])
    guard checksumOf(sequence: sequence, json: json) == UInt32(checksum) else { return nil }
    return (sequence, json)
  }

  /// The largest sequence number a slot can hold; past it the store starts a new file at 1.
  static let maximumSequence: UInt64 = 9_999_999_999_999_999

  /// Covers the sequence number too, so a flipped digit cannot make a stale slot the newest.
  private static func checksumOf(sequence: UInt64, json: [UInt8]) -> UInt32 {
    CRC32.checksum(digits(sequence, width: sequenceDigits, radix: 10) + json)
  }

  /// A whole slot of `slotSize` bytes holding `json` as sequence number `sequence`; nil when it does not fit.
  static func slot(json: [UInt8], sequence: UInt64, slotSize: Int) -> [UInt8]? {
    guard headerLength + json.count + 2 <= slotSize, sequence <= maximumSequence else { return nil }
    var bytes = prefix
    bytes.reserveCapacity(slotSize)
    bytes += digits(sequence, width: sequenceDigits, radix: 10)
    bytes += lengthKey
    bytes += digits(UInt64(json.count), width: lengthDigits, radix: 10)
    bytes += checksumKey
    bytes += digits(UInt64(checksumOf(sequence: sequence, json: json)), width: checksumDigits, radix: 16)
    bytes += stateKey
    bytes += json
    bytes.append(UInt8(ascii: "}"))
    bytes += repeatElement(UInt8(ascii: " "), count: slotSize - bytes.count - 1)
    bytes.append(UInt8(ascii: "\n"))
    return bytes
  }

  /// A whole new file: `json` in slot 0 as `sequence`, slot 1 empty (spaces), slots as small as fit.
  static func file(json: [UInt8], sequence: UInt64) -> (bytes: [UInt8], slotSize: Int) {
    var slotSize = minimumSlotSize
    while headerLength + json.count + 2 > slotSize { slotSize *= 2 }
    // `slotSize` was chosen so that the slot fits.
    let first = slot(json: json, sequence: min(sequence, maximumSequence), slotSize: slotSize) ?? []
    let empty = [UInt8](repeating: UInt8(ascii: " "), count: slotSize - 1) + [UInt8(ascii: "\n")]
    return (first + empty, slotSize)
  }

  private static func digits(_ value: UInt64, width: Int, radix: Int) -> [UInt8] {
    let text = String(value, radix: radix)
    return Array((String(repeating: "0", count: max(0, width - text.count)) + text).utf8)
  }

  private static func isDecimalDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }
  private static func isHexDigit(_ byte: UInt8) -> Bool {
    isDecimalDigit(byte) || (byte >= 0x61 && byte <= 0x66)
  }
}
