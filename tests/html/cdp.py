"""A headless Chromium driven through the DevTools protocol, with a tiny
websocket client (Python standard library only).

    with Browser() as b:
        page = b.open("file:///tmp/report.html")
        page.errors            # console errors and uncaught exceptions
        page.eval("document.title")
        page.screenshot("build/x.png")
"""
import base64
import json
import os
import re
import select
import shutil
import socket
import struct
import subprocess
import tempfile
import threading
import time
import urllib.parse


def find_chromium():
    for name in (os.environ.get("CHROMIUM"), "chromium", "chromium-browser",
                 "google-chrome", "google-chrome-stable"):
        if name and shutil.which(name):
            return shutil.which(name)
    return None


class WebSocket:
    """RFC 6455, client side: text frames out (masked), frames in."""

    def __init__(self, url, timeout=60):
        u = urllib.parse.urlparse(url)
        self.sock = socket.create_connection((u.hostname, u.port), timeout=timeout)
        key = base64.b64encode(os.urandom(16)).decode()
        req = ("GET %s HTTP/1.1\r\nHost: %s:%d\r\nUpgrade: websocket\r\n"
               "Connection: Upgrade\r\nSec-WebSocket-Key: %s\r\n"
               "Sec-WebSocket-Version: 13\r\n\r\n" % (u.path, u.hostname, u.port, key))
        self.sock.sendall(req.encode())
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = self.sock.recv(4096)
            if not chunk:
                raise ConnectionError("websocket handshake: connection closed")
            head += chunk
        head, self.buf = head.split(b"\r\n\r\n", 1)
        if b" 101 " not in head.split(b"\r\n")[0]:
            raise ConnectionError("websocket handshake failed: %r" % head[:200])

    def _read(self, n):
        while len(self.buf) < n:
            chunk = self.sock.recv(max(65536, n - len(self.buf)))
            if not chunk:
                raise ConnectionError("websocket closed")
            self.buf += chunk
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    def send(self, text):
        data = text.encode()
        hdr = bytearray([0x81])
        n = len(data)
        if n < 126:
            hdr.append(0x80 | n)
        elif n < 65536:
            hdr.append(0x80 | 126)
            hdr += struct.pack(">H", n)
        else:
            hdr.append(0x80 | 127)
            hdr += struct.pack(">Q", n)
        mask = os.urandom(4)
        hdr += mask
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(data))
        self.sock.sendall(bytes(hdr) + masked)

    def recv(self):
        parts = []
        while True:
            b0, b1 = self._read(2)
            op = b0 & 0x0F
            n = b1 & 0x7F
            if n == 126:
                n = struct.unpack(">H", self._read(2))[0]
            elif n == 127:
                n = struct.unpack(">Q", self._read(8))[0]
            mask = self._read(4) if b1 & 0x80 else None
            payload = self._read(n)
            if mask:
                payload = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
            if op == 0x8:
                raise ConnectionError("websocket closed by the browser")
            if op == 0x9:       # ping: answer, keep reading
                continue
            parts.append(payload)
            if b0 & 0x80:
                return b"".join(parts).decode()

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass


class Page:
    def __init__(self, browser, session):
        self.b = browser
        self.session = session
        self.errors = []

    def call(self, method, **params):
        return self.b.call(method, params, self.session)

    def eval(self, expr):
        r = self.call("Runtime.evaluate", expression=expr, returnByValue=True,
                      awaitPromise=True)
        if "exceptionDetails" in r:
            raise RuntimeError("page script failed: %s" % json.dumps(r["exceptionDetails"])[:500])
        return r["result"].get("value")

    def screenshot(self, path, full=True):
        params = {"format": "png"}
        if full:
            w, h = self.eval("[document.documentElement.scrollWidth,"
                             " document.documentElement.scrollHeight]")
            params["clip"] = {"x": 0, "y": 0, "width": w, "height": min(h, 6000), "scale": 1}
            params["captureBeyondViewport"] = True
        r = self.call("Page.captureScreenshot", **params)
        # Whole or not at all: another suite may write the same picture.
        part = "%s.%d.part" % (path, os.getpid())
        with open(part, "wb") as f:
            f.write(base64.b64decode(r["data"]))
        os.replace(part, path)


def _drain(fd):
    try:
        while os.read(fd, 65536):
            pass
    except OSError:
        pass


class Browser:
    def __init__(self, width=1280, height=900):
        exe = find_chromium()
        if exe is None:
            raise RuntimeError("no chromium found (install Debian's chromium, or set CHROMIUM)")
        self.profile = tempfile.mkdtemp(prefix="pystats-chromium.")
        # Not the preloads of a sanitizer or fault-injection run: Chromium
        # under a preloaded libasan spins instead of starting.
        env = {k: v for k, v in os.environ.items()
               if k not in ("LD_PRELOAD", "ASAN_OPTIONS", "UBSAN_OPTIONS", "PYTHONMALLOC")}
        self.proc = subprocess.Popen(
            [exe, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
             "--no-default-browser-check", "--disable-extensions", "--hide-scrollbars",
             "--remote-debugging-port=0", "--user-data-dir=" + self.profile,
             "--window-size=%d,%d" % (width, height), "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
        url = None
        seen = b""
        fd = self.proc.stderr.fileno()
        deadline = time.time() + 60
        while url is None and time.time() < deadline:
            # Never block past the deadline on a browser that says nothing.
            ready, _, _ = select.select([fd], [], [], max(0.0, deadline - time.time()))
            if not ready:
                break
            chunk = os.read(fd, 65536)
            if not chunk:
                break
            seen = (seen + chunk)[-65536:]
            m = re.search(rb"DevTools listening on (ws://\S+)", seen)
            if m:
                url = m.group(1).decode()
        if url is None:
            self.close()
            raise RuntimeError("chromium did not start its DevTools endpoint")
        # Drain what it says from now on, so that a full pipe never stops it.
        threading.Thread(target=_drain, args=(fd,), daemon=True).start()
        self.ws = WebSocket(url)
        self.next_id = 0
        self.events = []
        self.pages = {}

    def call(self, method, params=None, session=None, timeout=60):
        self.next_id += 1
        mid = self.next_id
        msg = {"id": mid, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        self.ws.send(json.dumps(msg))
        deadline = time.time() + timeout
        while time.time() < deadline:
            m = json.loads(self.ws.recv())
            if m.get("id") == mid:
                if "error" in m:
                    raise RuntimeError("%s: %s" % (method, m["error"]))
                return m.get("result", {})
            self._event(m)
        raise TimeoutError(method)

    def _event(self, m):
        page = self.pages.get(m.get("sessionId"))
        meth = m.get("method", "")
        p = m.get("params", {})
        if page is not None:
            if meth == "Runtime.exceptionThrown":
                d = p.get("exceptionDetails", {})
                page.errors.append("exception: %s %s" % (
                    d.get("text", ""), d.get("exception", {}).get("description", "")))
            elif meth == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
                page.errors.append("console.%s: %s" % (p["type"], " ".join(
                    str(a.get("value", a.get("description", ""))) for a in p.get("args", []))))
            elif meth == "Log.entryAdded" and p.get("entry", {}).get("level") == "error":
                page.errors.append("log: %s" % p["entry"].get("text", ""))
        self.events.append(m)

    def wait_event(self, session, method, timeout=60):
        deadline = time.time() + timeout
        for i, m in enumerate(self.events):
            if m.get("sessionId") == session and m.get("method") == method:
                del self.events[i]
                return m
        while time.time() < deadline:
            m = json.loads(self.ws.recv())
            self._event(m)
            if m.get("sessionId") == session and m.get("method") == method:
                self.events.pop()
                return m
        raise TimeoutError(method)

    def open(self, url, timeout=60):
        tid = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        sid = self.call("Target.attachToTarget", {"targetId": tid, "flatten": True})["sessionId"]
        page = Page(self, sid)
        page.target = tid
        self.pages[sid] = page
        for dom in ("Page", "Runtime", "Log"):
            self.call(dom + ".enable", {}, sid)
        self.events = [e for e in self.events if e.get("sessionId") != sid]
        t0 = time.time()
        self.call("Page.navigate", {"url": url}, sid)
        self.wait_event(sid, "Page.loadEventFired", timeout)
        page.load_seconds = time.time() - t0
        return page

    def close_page(self, page):
        try:
            self.call("Target.closeTarget", {"targetId": page.target})
        except (RuntimeError, TimeoutError, ConnectionError):
            pass
        self.pages.pop(page.session, None)

    def close(self):
        if getattr(self, "ws", None):
            self.ws.close()
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        shutil.rmtree(self.profile, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
