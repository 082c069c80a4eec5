import Failpoints
import XCTest

/// The grammar of fail-rs: `name=[p%][cnt*]action[(arg)][->…]`, entries separated by `;`.
final class SpecGrammarTests: XCTestCase {
  func testFailRsDocumentedShapesParse() throws {
    // fail-rs's own documentation example, with its `panic` spelled as our `abort`.
    let specs = try FailpointSpecParser.parse(
      "foo=20%3*print(still alive!)->abort;bar=50%sleep(100);baz=return;qux=off")
    XCTAssertEqual(specs.map(\.name), ["foo", "bar", "baz", "qux"])
    XCTAssertEqual(
      specs[0].terms,
      [FailpointTerm(probability: 0.2, remaining: 3, action: .print("still alive!")), FailpointTerm(action: .abort)])
    XCTAssertEqual(specs[1].terms, [FailpointTerm(probability: 0.5, action: .sleep(milliseconds: 100))])
    XCTAssertEqual(specs[2].terms, [FailpointTerm(action: .returnError(errno: EIO))])
    XCTAssertEqual(specs[3].terms, [FailpointTerm(action: .off)])
  }

  func testEveryActionKeywordParses() throws {
    let text =
      "a=segv;b=bus;c=fpe;d=abort;e=trap;f=fatal;g=unwrap;h=overflow;i=oob;j=stackoverflow;r=smash;k=kill;l=hang;m=exit(4);n=delay(3);o=return(ENOSPC);p=thread(segv);q=return(5)"
    let actions = try FailpointSpecParser.parse(text).map { $0.terms[0].action }
    XCTAssertEqual(
      actions,
      [
        .segv, .bus, .fpe, .abort, .trap, .fatal, .unwrap, .overflow, .outOfBounds, .stackOverflow, .smashedStack,
        .kill, .hang,
        .exit(code: 4), .delay(milliseconds: 3), .returnError(errno: ENOSPC), .thread(.segv), .returnError(errno: 5),
      ])
    XCTAssertEqual(
      actions.map(\.spec).joined(separator: ","),
      "segv,bus,fpe,abort,trap,fatal,unwrap,overflow,oob,stackoverflow,smash,kill,hang,exit(4),delay(3),return(ENOSPC),thread(segv),return(EIO)"
    )
  }

  func testOOMTakesAnOptionalBoundInMiB() throws {
    let actions = try FailpointSpecParser.parse("a=oom;b=oom(64);c=thread(oom(8))").map { $0.terms[0].action }
    XCTAssertEqual(
      actions,
      [.oom(megabytes: FailpointAction.defaultOOMMegabytes), .oom(megabytes: 64), .thread(.oom(megabytes: 8))])
    XCTAssertEqual(actions.map(\.spec), ["oom", "oom(64)", "thread(oom(8))"])
    XCTAssertTrue(actions.allSatisfy(\.isFatal))
    XCTAssertThrowsError(try FailpointSpecParser.parse("a=oom(0)"))
    XCTAssertThrowsError(try FailpointSpecParser.parse("a=oom(lots)"))
  }

  /// An action is a code and its argument: a later action is a new code, not a new enum case.
  func testAnActionIsACodeWithItsArgument() throws {
    XCTAssertEqual(FailpointAction.Code.all.map(\.name), FailpointAction.keywords)
    XCTAssertEqual(Set(FailpointAction.keywords).count, FailpointAction.keywords.count)
    let actions = try FailpointSpecParser.parse("a=sleep(7);b=thread(return(ENOSPC));c=print(hi);d=exit(3);e=oom(9)")
      .map { $0.terms[0].action }
    XCTAssertEqual(actions.map(\.code), [.sleep, .thread, .print, .exit, .oom])
    XCTAssertEqual(actions[0].milliseconds, 7)
    XCTAssertEqual(actions[1].inner?.code, .returnError)
    XCTAssertEqual(actions[1].inner?.errno, ENOSPC)
    XCTAssertNil(actions[1].errno, "the argument belongs to the inner action")
    XCTAssertEqual(actions[2].message, "hi")
    XCTAssertEqual(actions[3].exitCode, 3)
    XCTAssertEqual(actions[4].megabytes, 9)
    XCTAssertEqual(
      actions.map(\.description), ["sleep(7)", "thread(return(ENOSPC))", "print(hi)", "exit(3)", "oom(9)"])
    // The former cases' names still match, as values.
    switch actions[1] {
    case .segv: XCTFail("thread(…) is not segv")
    default: break
    }
  }

  func testWhitespaceAndEmptyEntriesAreTolerated() throws {
    let specs = try FailpointSpecParser.parse(" task.a = 1*segv ;; task.b=off; ")
    XCTAssertEqual(specs.map(\.name), ["task.a", "task.b"])
    XCTAssertEqual(specs[0].terms, [FailpointTerm(remaining: 1, action: .segv)])
  }

  func testArgumentsMayContainArrowsAndSemicolonsAreSeparators() throws {
    let spec = try FailpointSpecParser.parseActions("print(a->b)->off", name: "x")
    XCTAssertEqual(spec.terms.map(\.action), [.print("a->b"), .off])
  }

  private func assertError(
    _ text: String, contains message: String, at offset: Int, file: StaticString = #filePath, line: UInt = #line
  ) {
    XCTAssertThrowsError(try FailpointSpecParser.parse(text), file: file, line: line) { error in
      guard let error = error as? FailpointSpecError else { return XCTFail("\(error)", file: file, line: line) }
      XCTAssertTrue(error.message.contains(message), "\(error.message)", file: file, line: line)
      XCTAssertEqual(error.offset, offset, "\(error)", file: file, line: line)
      XCTAssertTrue(error.description.contains(text), "the message quotes the spec", file: file, line: line)
    }
  }

  func testBadSpecsPointAtTheProblem() {
    assertError("task.network=segz", contains: "unknown action 'segz'", at: 13)
    assertError("a=off;task.network", contains: "no '='", at: 18)
    assertError("=segv", contains: "missing failpoint name", at: 0)
    assertError("a=200%segv", contains: "malformed probability '200%'", at: 2)
    assertError("a=x%segv", contains: "malformed probability 'x%'", at: 2)
    assertError("a=-1*segv", contains: "malformed count '-1*'", at: 2)
    assertError("a=sleep", contains: "'sleep' needs a whole number", at: 7)
    assertError("a=sleep(soon)", contains: "'sleep' needs a whole number", at: 8)
    assertError("a=segv(3)", contains: "'segv' takes no argument", at: 7)
    assertError("a=print(hi", contains: "missing ')'", at: 10)
    assertError("a=return(EWHAT)", contains: "errno name or number", at: 9)
    assertError("a=exit(300)", contains: "status from 0 to 255", at: 7)
    assertError("a=segv->", contains: "empty action", at: 8)
    assertError("a b=segv", contains: "invalid character ' '", at: 1)
    assertError("a=thread()", contains: "'thread' needs an action", at: 9)
  }

  func testErrorDescriptionDrawsACaretUnderTheProblem() {
    let error = FailpointSpecError(spec: "task.x=segz", offset: 7, message: "unknown action 'segz'")
    XCTAssertEqual(error.description, "invalid failpoint spec: unknown action 'segz'\n  task.x=segz\n         ^")
  }
}
