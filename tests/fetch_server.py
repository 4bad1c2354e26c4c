#!/usr/bin/env python3
"""fetch_server.py — a local HTTP server with fault injection, for testing
the download engine (fetch/download.c) against the failures real servers
produce: error statuses, bodies cut short, resets, stalls, slow links,
servers that ignore Range, redirects.

  python3 tests/fetch_server.py --root DIR [--faults FAULTS.json]
                                --port-file FILE [--log REQUESTS.jsonl]

Serves files under DIR for GET and HEAD on 127.0.0.1 (ephemeral port,
written to --port-file through a temporary file and a rename, so a reader
never sees half a number). Single ranges "bytes=N-", "bytes=N-M" and
"bytes=-N" give 206 + Content-Range, 416 when N >= size. Every reply carries
Content-Length.

FAULTS.json maps a URL path to a list of behaviours; the i-th request for
that path gets the i-th entry, the last one repeating forever:
  ok                 serve normally
  status:N           reply N with a short body
  cut:BYTES          full headers, then only BYTES bytes of this reply's body,
                     then close
  reset              close the connection with RST (SO_LINGER on, timeout 0)
  stall:SECONDS      headers and the first few KB, then sleep, then close
  ignore-range       200 with the whole file even when a Range came
  slow:BYTES_PER_S   serve at that rate
  redirect:PATH      302 with Location: PATH

--log writes one JSON line per request, flushed at once:
  {"method","path","range" (header or null),"behaviour","status"}
Python 3 standard library only; exits cleanly on SIGTERM.
"""
import argparse
import http.server
import json
import os
import signal
import socket
import socketserver
import struct
import sys
import threading
import time
import urllib.parse

STALL_PREFIX = 4096  # bytes sent before a stall


class Faults:
    """Per-path behaviour lists and request counters, shared by threads."""

    def __init__(self, table):
        self.table = table
        self.count = {}
        self.lock = threading.Lock()

    def next(self, path):
        with self.lock:
            seq = self.table.get(path)
            i = self.count.get(path, 0)
            self.count[path] = i + 1
        if not seq:
            return "ok"
        return seq[min(i, len(seq) - 1)]


class RequestLog:
    """One JSON line per request, flushed immediately (tests read it live)."""

    def __init__(self, path):
        self.f = open(path, "a", encoding="utf-8") if path else None
        self.lock = threading.Lock()

    def write(self, method, path, rng, behaviour, status):
        if not self.f:
            return
        line = json.dumps({"method": method, "path": path, "range": rng,
                           "behaviour": behaviour, "status": status},
                          separators=(",", ":"))
        with self.lock:
            self.f.write(line + "\n")
            self.f.flush()


def parse_range(header, size):
    """(start, end) inclusive for a single byte range, "416" when it starts
    past the end, None when absent or not a form we serve (whole file)."""
    if not header or not header.startswith("bytes=") or "," in header:
        return None
    first, _, last = header[6:].strip().partition("-")
    try:
        if first == "":  # suffix range: the last N bytes
            n = int(last)
            return "416" if n == 0 or size == 0 else (max(0, size - n), size - 1)
        start = int(first)
        end = int(last) if last else size - 1
    except ValueError:
        return None
    if start >= size:
        return "416"
    if end < start:
        return None
    return (start, min(end, size - 1))


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "spsweep-fetch-server/1"

    def log_message(self, fmt, *args):  # quiet: the JSON log is the record
        pass

    def do_GET(self):
        self.serve(head=False)

    def do_HEAD(self):
        self.serve(head=True)

    def serve(self, head):
        path = urllib.parse.urlsplit(self.path).path
        rng = self.headers.get("Range")
        behaviour = self.server.faults.next(path)
        kind, _, arg = behaviour.partition(":")
        try:
            self.dispatch(path, rng, behaviour, kind, arg, head)
        except (BrokenPipeError, ConnectionResetError, socket.timeout):
            self.close_connection = True

    def dispatch(self, path, rng, behaviour, kind, arg, head):
        if kind == "reset":
            self.log_request_line(path, rng, behaviour, None)
            self.reset()
        elif kind == "status":
            self.log_request_line(path, rng, behaviour, int(arg))
            self.short_reply(int(arg), "fault: status %s\n" % arg, head)
        elif kind == "redirect":
            self.log_request_line(path, rng, behaviour, 302)
            self.send_response(302)
            self.send_header("Location", arg)
            self.send_header("Content-Length", "0")
            self.end_headers()
        else:
            self.serve_file(path, rng, behaviour, kind, arg, head)

    def log_request_line(self, path, rng, behaviour, status):
        self.server.reqlog.write(self.command, path, rng, behaviour, status)

    def short_reply(self, status, text, head):
        body = text.encode()
        self.send_response(status)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if not head:
            self.wfile.write(body)

    def reset(self):
        """Abort the connection: SO_LINGER {on, 0} makes close() send RST."""
        self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                                   struct.pack("ii", 1, 0))
        self.close_connection = True
        self.connection.close()

    def local_file(self, path):
        """The file under root for a URL path, or None (missing, outside)."""
        root = self.server.root
        full = os.path.realpath(os.path.join(root, urllib.parse.unquote(path).lstrip("/")))
        if not full.startswith(root + os.sep) or not os.path.isfile(full):
            return None
        return full

    def serve_file(self, path, rng, behaviour, kind, arg, head):
        full = self.local_file(path)
        if full is None:
            self.log_request_line(path, rng, behaviour, 404)
            self.short_reply(404, "not found\n", head)
            return
        size = os.path.getsize(full)
        span = None if kind == "ignore-range" else parse_range(rng, size)
        if span == "416":
            self.log_request_line(path, rng, behaviour, 416)
            self.send_response(416)
            self.send_header("Content-Range", "bytes */%d" % size)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        start, end = span if span else (0, size - 1)
        status = 206 if span else 200
        self.log_request_line(path, rng, behaviour, status)
        self.send_response(status)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Accept-Ranges", "bytes")
        self.send_header("Content-Length", str(end - start + 1))
        if span:
            self.send_header("Content-Range", "bytes %d-%d/%d" % (start, end, size))
        self.end_headers()
        if not head:
            self.send_body(full, start, end - start + 1, kind, arg)

    def send_body(self, full, start, length, kind, arg):
        with open(full, "rb") as f:
            f.seek(start)
            data = f.read(length)
        if kind == "cut":
            self.wfile.write(data[:int(arg)])
            self.wfile.flush()
            self.close_connection = True
        elif kind == "stall":
            self.wfile.write(data[:STALL_PREFIX])
            self.wfile.flush()
            time.sleep(float(arg))
            self.close_connection = True
        elif kind == "slow":
            self.send_slowly(data, float(arg))
        else:
            self.wfile.write(data)

    def send_slowly(self, data, rate):
        """Ten chunks a second, rate bytes per second."""
        chunk = max(1, int(rate / 10))
        for i in range(0, len(data), chunk):
            self.wfile.write(data[i:i + chunk])
            self.wfile.flush()
            time.sleep(0.1)


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True  # a stalled handler never holds up shutdown
    allow_reuse_address = True


def write_port(path, port):
    tmp = "%s.tmp.%d" % (path, os.getpid())
    with open(tmp, "w") as f:
        f.write("%d\n" % port)
    os.replace(tmp, path)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", required=True)
    ap.add_argument("--faults")
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--log")
    args = ap.parse_args()
    table = {}
    if args.faults:
        with open(args.faults, encoding="utf-8") as f:
            table = json.load(f)
    server = Server(("127.0.0.1", 0), Handler)
    server.root = os.path.realpath(args.root)
    server.faults = Faults(table)
    server.reqlog = RequestLog(args.log)

    def on_term(signum, frame):
        raise SystemExit(0)

    signal.signal(signal.SIGTERM, on_term)
    write_port(args.port_file, server.server_address[1])
    try:
        server.serve_forever(poll_interval=0.1)
    except (SystemExit, KeyboardInterrupt):
        pass
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
