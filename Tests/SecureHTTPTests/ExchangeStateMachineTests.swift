import Testing

@testable import SecureHTTP

/// The response-reading rules both handlers share, without I/O.
@Suite("Exchange state machine")
struct ExchangeStateMachineTests {
    typealias Machine = ExchangeStateMachine
    typealias Wire = ExchangeStateMachine.Wire

    /// A machine whose request is written: `GET` (or `method`), a limit of 100 bytes.
    static func started(_ wire: Wire, method: String = "GET", limit: Int = 100) -> Machine {
        var machine = Machine(wire: wire)
        #expect(machine.start(method: method, maximumBodySize: limit) == .writeRequest)
        return machine
    }

    /// A machine that has the final head of a 200 response.
    static func receiving(_ wire: Wire, limit: Int = 100) -> Machine {
        var machine = Self.started(wire, limit: limit)
        #expect(machine.receivedHeaders(status: 200, contentLength: nil) == .forwardHead(reserveCapacity: 0))
        return machine
    }

    static func failure(_ action: Machine.Action) -> SecureHTTPError? {
        if case .failRequest(let error, _) = action { return error }
        return nil
    }

    // MARK: The happy path

    @Test(arguments: [Wire.http1, .http2])
    func aResponseWithABodySucceedsOnce(wire: Wire) {
        var machine = Self.started(wire)
        #expect(machine.receivedHeaders(status: 200, contentLength: "5") == .forwardHead(reserveCapacity: 5))
        #expect(machine.receivedBodyPart(byteCount: 2) == .appendBody)
        #expect(machine.receivedBodyPart(byteCount: 3) == .appendBody)
        #expect(machine.state == .receivingBody(maximumBodySize: 100, received: 5))
        #expect(machine.receivedEnd() == .succeedRequest)
        #expect(machine.state == .finished)
    }

    @Test(arguments: [Wire.http1, .http2])
    func startingTwiceWritesTheRequestOnce(wire: Wire) {
        var machine = Self.started(wire)
        #expect(machine.start(method: "GET", maximumBodySize: 100) == .wait)
    }

    @Test func theReservationIsTheAnnouncedLengthCappedAtOneMebibyte() {
        var machine = Self.started(.http1, limit: 10 << 20)
        #expect(
            machine.receivedHeaders(status: 200, contentLength: "\(4 << 20)") == .forwardHead(reserveCapacity: 1 << 20)
        )
        var unparsable = Self.started(.http2)
        #expect(unparsable.receivedHeaders(status: 200, contentLength: "five") == .forwardHead(reserveCapacity: 0))
    }

    // MARK: Interim responses

    @Test(arguments: [(Wire.http1, 100), (.http1, 103), (.http1, 199), (.http2, 100), (.http2, 101), (.http2, 103)])
    func anInterimResponseIsSkippedAndTheFinalOneAwaited(wire: Wire, status: Int) {
        var machine = Self.started(wire)
        #expect(machine.receivedHeaders(status: status, contentLength: "1000") == .wait)
        #expect(machine.state == .awaitingHead(method: "GET", maximumBodySize: 100))
        #expect(machine.receivedHeaders(status: 200, contentLength: "3") == .forwardHead(reserveCapacity: 3))
    }

    @Test func overHTTP1A101IsTheFinalResponse() {
        var machine = Self.started(.http1)
        #expect(machine.isInterim(101) == false)
        #expect(machine.receivedHeaders(status: 101, contentLength: nil) == .forwardHead(reserveCapacity: 0))
    }

    @Test func overHTTP2AStreamMayNotEndOnAnInterimResponse() {
        var machine = Self.started(.http2)
        let action = machine.receivedHeaders(status: 103, contentLength: nil, endsStream: true)
        #expect(Self.failure(action)?.code == .invalidResponse)
        #expect(Self.failure(action)?.message == "the stream ended with an interim response")
        #expect(action == .failRequest(SecureHTTPError(.invalidResponse, ""), close: true))
    }

    // MARK: Content-Length and the limit

    @Test(arguments: [Wire.http1, .http2])
    func anAnnouncedLengthOverTheLimitFailsBeforeTheBody(wire: Wire) {
        var machine = Self.started(wire, limit: 100)
        let action = machine.receivedHeaders(status: 200, contentLength: "101")
        #expect(Self.failure(action)?.code == .responseTooLarge)
        #expect(Self.failure(action)?.message == "the response body is larger than the limit of 100 bytes")
        #expect(machine.receivedBodyPart(byteCount: 1) == .wait)
    }

    @Test(arguments: [Wire.http1, .http2])
    func anAnnouncedLengthAtTheLimitIsRead(wire: Wire) {
        var machine = Self.started(wire, limit: 100)
        #expect(machine.receivedHeaders(status: 200, contentLength: "100") == .forwardHead(reserveCapacity: 100))
        #expect(machine.receivedBodyPart(byteCount: 100) == .appendBody)
        #expect(machine.receivedEnd() == .succeedRequest)
    }

    /// A Content-Length that is a lie is for the protocol layer to catch (NIOHTTP1 reads the
    /// announced bytes; NIOHTTP2 resets the stream); the limit holds whatever was announced.
    @Test(arguments: [Wire.http1, .http2])
    func aContentLengthTooShortDoesNotLiftTheLimit(wire: Wire) {
        var machine = Self.started(wire, limit: 100)
        #expect(machine.receivedHeaders(status: 200, contentLength: "10") == .forwardHead(reserveCapacity: 10))
        #expect(machine.receivedBodyPart(byteCount: 60) == .appendBody)
        let action = machine.receivedBodyPart(byteCount: 41)
        #expect(Self.failure(action)?.code == .responseTooLarge)
        #expect(machine.receivedEnd() == .wait)
    }

    @Test(arguments: [Wire.http1, .http2])
    func aContentLengthTooLongReservesNoMoreThanItsCap(wire: Wire) {
        var machine = Self.started(wire, limit: 8 << 20)
        #expect(
            machine.receivedHeaders(status: 200, contentLength: "\(8 << 20)") == .forwardHead(reserveCapacity: 1 << 20)
        )
        #expect(machine.receivedBodyPart(byteCount: 3) == .appendBody)
        #expect(machine.receivedEnd() == .succeedRequest)
    }

    @Test(arguments: [("HEAD", 200), ("GET", 204), ("GET", 304)])
    func aResponseWithoutBodyIgnoresItsContentLength(method: String, status: Int) {
        var machine = Self.started(.http1, method: method, limit: 10)
        #expect(machine.receivedHeaders(status: status, contentLength: "5000") == .forwardHead(reserveCapacity: 0))
    }

    @Test(arguments: [Wire.http1, .http2])
    func aBodyOverTheLimitFailsAtTheByteThatPassesIt(wire: Wire) {
        var machine = Self.receiving(wire, limit: 100)
        #expect(machine.receivedBodyPart(byteCount: 100) == .appendBody)
        let action = machine.receivedBodyPart(byteCount: 1)
        #expect(Self.failure(action)?.code == .responseTooLarge)
        #expect(action == .failRequest(.tooLarge(100), close: true))
    }

    // MARK: Trailers

    @Test func overHTTP2TrailersEndTheResponse() {
        var machine = Self.receiving(.http2)
        #expect(machine.receivedBodyPart(byteCount: 4) == .appendBody)
        #expect(machine.receivedHeaders(status: 0, contentLength: nil, endsStream: true) == .succeedRequest)
        #expect(machine.state == .finished)
    }

    @Test func overHTTP2TrailersThatDoNotEndTheStreamFail() {
        var machine = Self.receiving(.http2)
        let action = machine.receivedHeaders(status: 0, contentLength: nil, endsStream: false)
        #expect(Self.failure(action)?.code == .invalidResponse)
        #expect(
            Self.failure(action)?.message
                == "the response has a header block after its body that does not end the stream"
        )
    }

    /// NIOHTTP1 hands trailers over with the end of the message.
    @Test func overHTTP1TheEndWithTrailersSucceeds() {
        var machine = Self.receiving(.http1)
        #expect(machine.receivedEnd() == .succeedRequest)
    }

    // MARK: Out of order

    enum Misstep: String, CaseIterable {
        case bodyBeforeHead, endBeforeHead, headAfterHeadOverHTTP1, headBeforeRequest
    }

    @Test(arguments: Misstep.allCases, [Wire.http1, .http2])
    func aPartOutOfOrderFails(misstep: Misstep, wire: Wire) {
        var machine = Self.started(wire)
        let action: Machine.Action
        switch misstep {
        case .bodyBeforeHead: action = machine.receivedBodyPart(byteCount: 1)
        case .endBeforeHead: action = machine.receivedEnd()
        case .headAfterHeadOverHTTP1:
            guard wire == .http1 else { return }
            machine = Self.receiving(wire)
            action = machine.receivedHeaders(status: 200, contentLength: nil)
        case .headBeforeRequest:
            machine = Machine(wire: wire)
            action = machine.receivedHeaders(status: 200, contentLength: nil)
        }
        let expected =
            wire == .http1
            ? "the server sent a response part out of order" : "the server sent a response frame out of order"
        #expect(Self.failure(action)?.code == .invalidResponse)
        #expect(Self.failure(action)?.message == expected)
        #expect(machine.state == .finished)
    }

    // MARK: Deadline, errors, closing: the exchange ends once

    @Test(arguments: [Wire.http1, .http2])
    func theDeadlineFailsAnExchangeInFlight(wire: Wire) {
        var awaiting = Self.started(wire)
        #expect(Self.failure(awaiting.deadlinePassed())?.code == .deadlineExceeded)
        var receiving = Self.receiving(wire)
        let action = receiving.deadlinePassed()
        #expect(action == .failRequest(SecureHTTPError(.deadlineExceeded, ""), close: true))
        #expect(Self.failure(action)?.message == "the request deadline passed during the exchange")
    }

    enum Late: String, CaseIterable {
        case error, deadline, close, end, body, head
    }

    static func apply(_ late: Late, to machine: inout Machine) -> Machine.Action {
        switch late {
        case .error: machine.failed(SecureHTTPError(.tlsFailure, "late"))
        case .deadline: machine.deadlinePassed()
        case .close: machine.closed(SecureHTTPError(.cancelled, "cancelled"))
        case .end: machine.receivedEnd()
        case .body: machine.receivedBodyPart(byteCount: 1)
        case .head: machine.receivedHeaders(status: 200, contentLength: nil)
        }
    }

    @Test(arguments: Late.allCases, [Wire.http1, .http2])
    func nothingHappensAfterSuccess(late: Late, wire: Wire) {
        var machine = Self.receiving(wire)
        #expect(machine.receivedEnd() == .succeedRequest)
        #expect(Self.apply(late, to: &machine) == .wait)
        #expect(machine.state == .finished)
    }

    @Test(arguments: Late.allCases, [Wire.http1, .http2])
    func nothingHappensAfterFailure(late: Late, wire: Wire) {
        var machine = Self.receiving(wire)
        #expect(Self.failure(machine.failed(SecureHTTPError(.invalidResponse, "first")))?.message == "first")
        #expect(Self.apply(late, to: &machine) == .wait)
    }

    @Test(arguments: [Wire.http1, .http2])
    func aCloseFailsTheExchangeInFlightWithoutClosingAgain(wire: Wire) {
        var machine = Self.receiving(wire)
        let action = machine.closed(SecureHTTPError(.cancelled, "the request was cancelled"))
        #expect(action == .failRequest(SecureHTTPError(.cancelled, ""), close: false))
        #expect(Self.failure(action)?.message == "the request was cancelled")
    }

    @Test(arguments: [Wire.http1, .http2])
    func aCloseWithNoExchangeFailsNothing(wire: Wire) {
        var machine = Machine(wire: wire)
        #expect(machine.closed(SecureHTTPError(.connectionClosed, "closed")) == .wait)
        #expect(machine.start(method: "GET", maximumBodySize: 1) == .wait)
    }

    @Test(arguments: [Wire.http1, .http2])
    func anErrorBeforeTheRequestClosesTheChannel(wire: Wire) {
        var machine = Machine(wire: wire)
        #expect(
            machine.failed(SecureHTTPError(.tlsFailure, "alert"))
                == .failRequest(SecureHTTPError(.tlsFailure, ""), close: true)
        )
    }
}
