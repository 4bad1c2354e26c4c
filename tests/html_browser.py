#!/usr/bin/env python3
"""html_browser.py — open a report's index.html in headless Chromium and
check it as a reader would see it (tests/test_report_html.c runs it).

    html_browser.py INDEX.html [--click TABLE_ID:COLUMN]... [--timeout S]

Chromium is driven through the DevTools protocol on a pipe
(--remote-debugging-pipe: NUL-terminated JSON on fds 3 and 4), with the
standard library only. The page is loaded from its file; then:
  - every chart the page lists (nav li.chart, #chart-count) has its section
    and an inline SVG drawn with a nonzero bounding box, holding drawn
    elements;
  - each --click: the column's header is clicked twice; the rows must come
    ascending, then descending, by the page's sort key (a cell's leading
    number in a numeric column, else the text; empty and "-" last), the
    same rows each time;
  - no console error, no uncaught exception, no log entry of level error
    (a blocked or failed load is one), and no request but the page itself
    (the page is self-contained: nothing is fetched at view time).
Prints the findings as JSON on stdout. Exit 0 when every check holds, 1
with one line per failed check on stderr, 2 on bad usage or a browser that
does not answer in time, 77 (the line on stderr says why) when there is no
Chromium: $SPSWEEP_CHROMIUM, else chromium or chromium-browser on PATH.
"""
import argparse
import json
import os
import pathlib
import re
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time

NUMBER = re.compile(r"^\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)")


def find_chromium():
    given = os.environ.get("SPSWEEP_CHROMIUM")
    if given:
        return shutil.which(given)
    for name in ("chromium", "chromium-browser"):
        path = shutil.which(name)
        if path:
            return path
    return None


class Browser:
    """One Chromium process and its DevTools pipe."""

    def __init__(self, binary, profile, deadline):
        self.deadline = deadline
        self.next_id = 0
        self.events = []
        self.buffer = b""
        to_browser_r, self.to_browser = os.pipe()
        self.from_browser, from_browser_w = os.pipe()

        # in the child: its ends as fds 3 and 4 (close_fds would close them
        # after this; Python's own descriptors are close-on-exec anyway)
        def fds_3_and_4():
            os.dup2(to_browser_r, 20)
            os.dup2(from_browser_w, 21)
            os.dup2(20, 3)
            os.dup2(21, 4)
            os.close(20)
            os.close(21)

        self.log = tempfile.TemporaryFile()
        # --no-sandbox: the page is our own file, and Chromium's sandbox needs
        # user namespaces that containers (and root) often lack
        self.proc = subprocess.Popen(
            [binary, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
             "--remote-debugging-pipe", f"--user-data-dir={profile}", "--no-first-run",
             "--no-default-browser-check", "--disable-extensions", "--disable-sync",
             "--disable-background-networking", "--disable-component-update",
             "--window-size=1280,1600", "about:blank"],
            stdin=subprocess.DEVNULL, stdout=self.log, stderr=self.log,
            preexec_fn=fds_3_and_4, close_fds=False, start_new_session=True)
        os.close(to_browser_r)
        os.close(from_browser_w)

    def stderr_tail(self):
        self.log.seek(0)
        lines = self.log.read().decode(errors="replace").strip().splitlines()
        return " | ".join(lines[-5:])

    def _read_one(self):
        """The next message, waiting at most until the deadline."""
        while b"\0" not in self.buffer:
            left = self.deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("Chromium did not answer in time")
            ready, _, _ = select.select([self.from_browser], [], [], left)
            if not ready:
                continue
            chunk = os.read(self.from_browser, 1 << 16)
            if not chunk:
                raise EOFError("Chromium closed its DevTools pipe: " + self.stderr_tail())
            self.buffer += chunk
        message, self.buffer = self.buffer.split(b"\0", 1)
        return json.loads(message)

    def call(self, method, session=None, **params):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params}
        if session:
            message["sessionId"] = session
        os.write(self.to_browser, json.dumps(message).encode() + b"\0")
        while True:
            reply = self._read_one()
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self.events.append(reply)

    def wait_event(self, method, session):
        seen = 0
        while True:
            for event in self.events[seen:]:
                if event.get("method") == method and event.get("sessionId") == session:
                    return event
            seen = len(self.events)
            self.events.append(self._read_one())

    def evaluate(self, session, expression):
        result = self.call("Runtime.evaluate", session, expression=expression,
                           returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in result:
            raise RuntimeError(f"evaluating in the page: {result['exceptionDetails']}")
        return result["result"].get("value")

    def close(self):
        try:
            self.call("Browser.close")
        except (OSError, EOFError, TimeoutError, RuntimeError):
            pass
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()
        os.close(self.to_browser)
        os.close(self.from_browser)
        self.log.close()


CHARTS = """(() => {
  const drawn = (svg) => {
    const box = svg.getBoundingClientRect();
    const marks = svg.querySelectorAll('path, rect, text, image, circle, polyline');
    let visible = 0;
    marks.forEach((m) => { const b = m.getBBox(); if (b.width > 0 || b.height > 0) visible++; });
    return {width: box.width, height: box.height, marks: visible};
  };
  const charts = [...document.querySelectorAll('section.chart')].map((s) => {
    const svg = s.querySelector('figure svg');
    return Object.assign({id: s.id}, svg ? drawn(svg) : {width: 0, height: 0, marks: 0});
  });
  return {
    title: document.title,
    listed: document.querySelectorAll('nav li.chart').length,
    count_text: (document.getElementById('chart-count') || {}).textContent || null,
    charts: charts,
    svgs: document.querySelectorAll('section.chart figure svg').length,
    tables: document.querySelectorAll('table.sortable').length,
  };
})()"""

COLUMN = """((id, col, click) => {
  const table = document.querySelector('section[id="' + id + '"] table.sortable');
  if (!table) return null;
  if (click) table.tHead.rows[0].cells[col].click();
  return {
    sort: table.tHead.rows[0].cells[col].getAttribute('aria-sort'),
    rows: [...table.tBodies[0].rows].map((r) => [...r.cells].map((c) => c.textContent)),
  };
})"""


def blank(s):
    return s.strip() in ("", "-")


def key(s):
    m = NUMBER.match(s)
    return float(m.group(1)) if m else None


def natural(s):
    """The order of the page's collator (ICU's, numeric, by base letters) for
    ASCII names: a run of digits as its number (m9 before m10); spaces and
    punctuation before digits, digits before letters, letters case-folded."""
    key = []
    for part in re.split(r"(\d+)", s):
        if part.isdigit():
            key.append((1, int(part)))
        else:
            key += [(2, ord(c.casefold())) if c.isalpha() else (0, ord(c)) for c in part]
    return key


def check_sorted(rows, col, descending):
    """The problem with rows sorted by col, or None."""
    cells = [r[col] for r in rows]
    filled = [c for c in cells if not blank(c)]
    if cells[:len(filled)] != filled:
        return "empty and '-' cells are not last"
    numeric = all(key(c) is not None for c in filled)
    keys = [key(c) if numeric else natural(c) for c in filled]
    want = sorted(keys, reverse=descending)
    if keys != want:
        return f"not {'descending' if descending else 'ascending'}: {filled}"
    return None


def run(args):
    page = pathlib.Path(args.page).resolve()
    if not page.is_file():
        print(f"html_browser.py: {page}: no such file", file=sys.stderr)
        return 2
    binary = find_chromium()
    if not binary:
        print("html_browser.py: no Chromium (chromium, chromium-browser or $SPSWEEP_CHROMIUM): "
              "the browser test is skipped; make deps installs it", file=sys.stderr)
        return 77
    start = time.monotonic()
    found, problems = {}, []
    with tempfile.TemporaryDirectory(prefix="spsweep-chromium-") as profile:
        browser = Browser(binary, profile, start + args.timeout)
        try:
            found["chromium"] = browser.call("Browser.getVersion").get("product")
            target = browser.call("Target.createTarget", url="about:blank")["targetId"]
            session = browser.call("Target.attachToTarget", targetId=target,
                                   flatten=True)["sessionId"]
            for domain in ("Runtime", "Log", "Network", "Page"):
                browser.call(f"{domain}.enable", session)
            browser.call("Page.navigate", session, url=page.as_uri())
            browser.wait_event("Page.loadEventFired", session)
            found["load_s"] = round(time.monotonic() - start, 2)
            found.update(browser.evaluate(session, CHARTS))
            found["clicks"] = {}
            for spec in args.click:
                table, _, col = spec.rpartition(":")
                got = [browser.evaluate(session, f"{COLUMN}({json.dumps(table)}, {int(col)}, "
                                                 f"{'true' if i else 'false'})")
                       for i in range(3)]
                if got[0] is None:
                    problems.append(f"{spec}: no sortable table in section {table}")
                    continue
                found["clicks"][spec] = {
                    "before": [r[int(col)] for r in got[0]["rows"]],
                    "ascending": [r[int(col)] for r in got[1]["rows"]],
                    "descending": [r[int(col)] for r in got[2]["rows"]],
                    "aria": [got[1]["sort"], got[2]["sort"]]}
                for g, descending in ((got[1], False), (got[2], True)):
                    why = check_sorted(g["rows"], int(col), descending)
                    if why:
                        problems.append(f"{spec}: {why}")
                    if sorted(g["rows"]) != sorted(got[0]["rows"]):
                        problems.append(f"{spec}: sorting changed the rows")
                if [got[1]["sort"], got[2]["sort"]] != ["ascending", "descending"]:
                    problems.append(f"{spec}: aria-sort {got[1]['sort']}, {got[2]['sort']}")
            browser.call("Runtime.evaluate", session, expression="0")   # drain the events
        except (TimeoutError, EOFError, RuntimeError, KeyError) as e:
            print(f"html_browser.py: {e}; Chromium said: {browser.stderr_tail()}",
                  file=sys.stderr)
            browser.close()
            return 2
        events = browser.events
        browser.close()
    found["seconds"] = round(time.monotonic() - start, 2)
    errors = []
    for e in events:
        p, m = e.get("params", {}), e.get("method")
        if m == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
            errors.append("console." + p["type"] + ": " +
                          " ".join(str(a.get("value", a.get("description")))
                                   for a in p.get("args", [])))
        elif m == "Runtime.exceptionThrown":
            d = p.get("exceptionDetails", {})
            errors.append("exception: " + d.get("exception", {}).get("description",
                                                                     d.get("text", "")))
        elif m == "Log.entryAdded" and p.get("entry", {}).get("level") == "error":
            errors.append("log: " + p["entry"].get("text", ""))
    found["console_errors"] = errors
    found["requests"] = sorted({e["params"]["request"]["url"] for e in events
                                if e.get("method") == "Network.requestWillBeSent"
                                and e["params"]["request"]["url"] != page.as_uri()
                                and not e["params"]["request"]["url"].startswith("data:")})
    problems += [f"console: {e}" for e in errors]
    problems += [f"requested {u}: the page must load nothing" for u in found["requests"]]
    charts = found["charts"]
    counts = {"listed": found["listed"], "sections": len(charts), "svgs": found["svgs"],
              "drawn": sum(1 for c in charts if c["width"] > 0 and c["height"] > 0
                           and c["marks"] > 0)}
    found["drawn"] = counts["drawn"]
    if str(found["listed"]) != found["count_text"]:
        problems.append(f"the page says {found['count_text']} charts and lists {found['listed']}")
    if len(set(counts.values())) != 1:
        problems.append(f"charts listed, sections, SVGs and drawn SVGs differ: {counts}")
    problems += [f"chart {c['id']} is not drawn: {c}" for c in charts
                 if not (c["width"] > 0 and c["height"] > 0 and c["marks"] > 0)]
    print(json.dumps(found))
    for p in problems:
        print(f"html_browser.py: {p}", file=sys.stderr)
    return 1 if problems else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("page")
    parser.add_argument("--click", action="append", default=[], metavar="TABLE_ID:COLUMN")
    parser.add_argument("--timeout", type=float, default=60)
    return run(parser.parse_args())


if __name__ == "__main__":
    sys.exit(main())
