#!/usr/bin/env python3
"""A protocol-speaking HTTP server for `requests:` tests (Docs/Protocol.md): it writes the
`launch` and `launching_finished` events to $CHAOS_EVENTS, then serves on 127.0.0.1:$CHAOS_PORT
until SIGTERM, which ends it with exit 0 after a `stopping` event.

Knobs (environment): BIND_DELAY=seconds waits before listening; NO_SERVER=1 never listens;
EXIT_AFTER=seconds exits 0 that long after launching_finished instead of serving.
"""
import http.server
import json
import os
import signal
import sys
import time


def emit(name, **fields):
    fields.update(event=name, pid=os.getpid(), t=time.monotonic_ns())
    line = (json.dumps(fields, separators=(",", ":")) + "\n").encode()
    fd = os.open(os.environ["CHAOS_EVENTS"], os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    os.write(fd, line)  # one write per line, as the protocol asks
    os.close(fd)


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def reply(self, status, body, chunked=False):
        data = body.encode()
        self.send_response(status)
        self.send_header("Content-Type", "text/plain")
        if chunked:
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            for piece in (data[:5], data[5:]):
                self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
            self.wfile.write(b"0\r\n\r\n")
        else:
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    def do_GET(self):
        if self.path == "/health":
            self.reply(200, "ok\n")
        elif self.path == "/fail":
            self.reply(503, "unavailable")
        elif self.path == "/chunked":
            self.reply(200, "hello chunked world", chunked=True)
        else:
            self.reply(404, "no route " + self.path)

    def do_HEAD(self):
        self.send_response(200 if self.path == "/health" else 404)
        self.send_header("Content-Length", "3")
        self.end_headers()

    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(length).decode()
        self.reply(201, "%s %s %s" % (self.path, self.headers.get("X-Token", "-"), body))

    def log_message(self, *arguments):
        pass


def stop(*_):
    emit("stopping")
    os._exit(0)


signal.signal(signal.SIGTERM, stop)
emit("launch", count=0, mode="normal")
emit("launching_finished")
if "EXIT_AFTER" in os.environ:
    time.sleep(float(os.environ["EXIT_AFTER"]))
    sys.exit(0)
if os.environ.get("NO_SERVER"):
    while True:
        time.sleep(1)
time.sleep(float(os.environ.get("BIND_DELAY", "0")))
server = http.server.HTTPServer(("127.0.0.1", int(os.environ["CHAOS_PORT"])), Handler)
server.serve_forever()
