#!/usr/bin/env python3
"""slowloris.py PORT [options]: a stalled-exporter attack on serve, and the
scrapes that must get through it (issue 29). Loopback only.

  attackers   4 connections from each of 127.0.0.10..19 (--attackers 40, each address
              under serve's per-address cap), each sending a request line
              and then one header line every --trickle seconds, never the
              blank line that ends the headers; a connection the server
              closes is opened again at once, so 40 are trickling all along
  scrapers    a GET /metrics every --every seconds from 127.0.0.2 and
              127.0.0.3, each timed from connect() to the whole answer
  burst       after --burst-at seconds, --burst connections from
              127.0.0.20..29 (200 in flight at a time): each connects and
              closes at once; then the scrapes of the next --after seconds
              are reported apart ("after the burst")

Prints one line per phase (before, during and after the burst, later):
"PHASE: scrapes N answered A failed F latency ms min/median/max X/Y/Z",
and "attackers: D connections dropped by the server".
Exit status 0; the caller judges the numbers.
"""
import argparse
import socket
import statistics
import threading
import time

ap = argparse.ArgumentParser()
ap.add_argument("port", type=int)
ap.add_argument("--seconds", type=float, default=20)
ap.add_argument("--trickle", type=float, default=4)
ap.add_argument("--attackers", type=int, default=40)
ap.add_argument("--every", type=float, default=0.25)
ap.add_argument("--burst", type=int, default=0)
ap.add_argument("--burst-at", type=float, default=8)
ap.add_argument("--after", type=float, default=3)
ap.add_argument("--timeout", type=float, default=10)
a = ap.parse_args()

stop = threading.Event()
lock = threading.Lock()
drops = 0
results = []  # (t_start, latency_s or None, detail)
burst_window = [None, None]  # when the burst began, ended


def connect(src, timeout):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.settimeout(timeout)
    s.bind((src, 0))
    s.connect(("127.0.0.1", a.port))
    return s


def attacker(src, n):
    global drops
    while not stop.is_set():
        s = None
        try:
            s = connect(src, 5)
            s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n")
            s.settimeout(a.trickle)
            i = 0
            while not stop.is_set():
                try:
                    if s.recv(4096) == b"":
                        break  # the server closed it
                except socket.timeout:
                    pass
                s.sendall(b"X-Pad-%d: %d\r\n" % (n, i))
                i += 1
        except OSError:
            pass  # refused, reset, or closed while sending
        if not stop.is_set():
            with lock:
                drops += 1
        if s:
            s.close()
        time.sleep(0.05)


def scrape(src):
    t0 = time.monotonic()
    try:
        s = connect(src, a.timeout)
        s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        data = b""
        while True:
            b = s.recv(65536)
            if not b:
                break
            data += b
        s.close()
        ok = data.startswith(b"HTTP/1.1 200") and b"kvm_exitstat_build_info" in data
        return t0, (time.monotonic() - t0) if ok else None, data[:40]
    except OSError as e:
        return t0, None, str(e)


def scraper(src):
    while not stop.is_set():
        r = scrape(src)
        with lock:
            results.append(r)
        time.sleep(a.every)


def burst():
    time.sleep(a.burst_at)
    burst_window[0] = time.monotonic()
    socks = []
    for i in range(a.burst):
        src = "127.0.0.%d" % (20 + i % 10)
        try:
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.setblocking(False)
            s.bind((src, 0))
            s.connect_ex(("127.0.0.1", a.port))
            socks.append(s)
        except OSError:
            pass
        if len(socks) >= 200:
            for s in socks:
                s.close()
            socks = []
    for s in socks:
        s.close()
    burst_window[1] = time.monotonic()


threads = [threading.Thread(target=attacker, args=("127.0.0.%d" % (10 + i // 4), i), daemon=True)
           for i in range(a.attackers)]
threads += [threading.Thread(target=scraper, args=(src,), daemon=True)
            for src in ("127.0.0.2", "127.0.0.3")]
if a.burst:
    threads.append(threading.Thread(target=burst, daemon=True))
for t in threads:
    t.start()
time.sleep(a.seconds)
stop.set()
time.sleep(0.2)


def line(name, rs):
    ok = [r[1] * 1000 for r in rs if r[1] is not None]
    bad = [r for r in rs if r[1] is None]
    s = "%s: scrapes %d answered %d failed %d" % (name, len(rs), len(ok), len(bad))
    if ok:
        s += " latency ms min/median/max %.1f/%.1f/%.1f" % (min(ok), statistics.median(ok), max(ok))
    if bad:
        s += " first failure: %r" % (bad[0][2],)
    print(s, flush=True)


with lock:
    rs = list(results)
    d = drops
if a.burst and burst_window[1]:
    b0, b1 = burst_window
    line("during the attack, before the burst", [r for r in rs if r[0] < b0])
    line("during the burst of %d connections (%.2f s)" % (a.burst, b1 - b0),
         [r for r in rs if b0 <= r[0] < b1])
    line("after the burst (%g s)" % a.after, [r for r in rs if b1 <= r[0] <= b1 + a.after])
    line("later", [r for r in rs if r[0] > b1 + a.after])
else:
    line("during the attack", rs)
print("attackers: %d connections dropped by the server" % d, flush=True)
