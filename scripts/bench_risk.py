#!/usr/bin/env python3
"""Parts of scripts/bench-risk.sh: a TLS stand-in risk backend, a delaying TCP relay (used when
the kernel has no netem), and the driver that times whole `palisade hook` calls.

  bench_risk.py standin ADDR PORT CERT KEY     HTTPS, keep-alive, answers every POST
  bench_risk.py relay LISTEN_ADDR LISTEN_PORT TO_ADDR TO_PORT DELAY_MS
  bench_risk.py drive N DATA_DIR_DIRECT DATA_DIR_BROKER   (PALISADE_BIN, BENCH_CWD from env)
"""

import asyncio
import http.server
import json
import os
import ssl
import statistics
import subprocess
import sys
import time

ANSWER = json.dumps({
    "model": "jev-1.13.0",
    "answers": {
        "risk": {"type": "score", "score": 1.8, "confidence": 0.9},
        "destructive": {"type": "noul", "noul": 0.3},
        "exfiltration": {"type": "noul", "noul": 0.1},
        "beyond_request": {"type": "noul", "noul": 0.2},
        "from_untrusted": {"type": "noul", "noul": 0.02},
        "hidden_effect": {"type": "noul", "noul": 0.1},
        "authorized": {"type": "noul", "noul": 0.1},
    },
    "usage": {"input_tokens": 449, "output_tokens": 7},
}).encode()


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # Headers and body go out as separate writes: without this, Nagle and the client's delayed
    # ACK add about 40 ms that no real server has.
    disable_nagle_algorithm = True

    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", "0")))
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(ANSWER)))
        self.end_headers()
        self.wfile.write(ANSWER)

    def log_message(self, *args):
        pass


def standin(addr, port, cert, key):
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(cert, key)
    srv = http.server.ThreadingHTTPServer((addr, int(port)), Handler)
    srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
    srv.serve_forever()


async def pump(reader, writer, delay, start_at):
    """Forwards what `reader` gives, each chunk `delay` seconds after it arrived, in order."""
    queue = asyncio.Queue()

    async def read():
        while True:
            data = await reader.read(65536)
            await queue.put((time.monotonic(), data))
            if not data:
                return

    task = asyncio.ensure_future(read())
    try:
        while True:
            t, data = await queue.get()
            wait = max(t, start_at) + delay - time.monotonic()
            if wait > 0:
                await asyncio.sleep(wait)
            if not data:
                break
            writer.write(data)
            await writer.drain()
    finally:
        task.cancel()
        writer.close()


def relay(laddr, lport, taddr, tport, delay_ms):
    delay = int(delay_ms) / 1000.0

    async def conn(cr, cw):
        # The client's connect() finished at once; the TCP handshake a real link would take
        # (one round trip) is added before anything it sent is forwarded.
        start_at = time.monotonic() + 2 * delay
        try:
            ur, uw = await asyncio.open_connection(taddr, int(tport))
        except OSError:
            cw.close()
            return
        await asyncio.gather(pump(cr, uw, delay, start_at), pump(ur, cw, delay, start_at))

    async def main():
        srv = await asyncio.start_server(conn, laddr, int(lport))
        async with srv:
            await srv.serve_forever()

    asyncio.run(main())


def drive(n, direct_dir, broker_dir):
    exe = os.environ["PALISADE_BIN"]
    cwd = os.environ["BENCH_CWD"]
    event = json.dumps({
        "session_id": "bench-risk", "cwd": cwd, "hook_event_name": "PreToolUse",
        "permission_mode": "default", "tool_name": "Bash",
        "tool_input": {"command": "npm run build"}, "tool_use_id": "toolu_1",
    }).encode()
    times = {"direct": [], "broker": []}
    ways = {"direct": direct_dir, "broker": broker_dir}
    for i in range(int(n) + 2):
        for way, data_dir in ways.items():
            env = dict(os.environ, PALISADE_DATA_DIR=data_dir)
            t = time.perf_counter()
            out = subprocess.run([exe, "hook"], input=event, env=env, capture_output=True)
            took = (time.perf_counter() - t) * 1000
            answer = json.loads(out.stdout or b"{}")
            decision = answer.get("hookSpecificOutput", {}).get("permissionDecisionReason", "")
            if "[risk/ask]" not in decision:
                sys.exit(f"{way}: the backend did not answer: {out.stdout!r} {out.stderr!r}")
            if i >= 2:  # the first calls warm the page cache and the broker's pool
                times[way].append(took)
    for way, data_dir in ways.items():
        with open(os.path.join(data_dir, "audit.jsonl")) as f:
            notes = {json.loads(line)["risk"].get("broker") for line in f}
        used = notes == {"used"}
        if used != (way == "broker"):
            sys.exit(f"{way}: unexpected broker notes {notes}")
    for way, ts in times.items():
        ts.sort()
        p = lambda q: ts[min(len(ts) - 1, int(round(q * (len(ts) - 1))))]
        print(f"| {way} | {len(ts)} | {p(0.5):.0f} | {p(0.95):.0f} | {statistics.mean(ts):.0f} |")


if __name__ == "__main__":
    cmd, args = sys.argv[1], sys.argv[2:]
    {"standin": standin, "relay": relay, "drive": drive}[cmd](*args)
