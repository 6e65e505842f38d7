#!/usr/bin/env python3
"""A scripted model for palisade's end-to-end test: it speaks enough of the Anthropic Messages
API for the real Claude Code CLI to run a session offline, and its "model" makes exactly the
tool calls in a script, one per turn, so Claude Code really runs its hooks on them.

    fake_model.py --script STEPS.json --log REQUESTS.jsonl --port-file PORT

STEPS.json is a list of tool calls, [{"name": "Bash", "input": {"command": "ls"}}, ...].
Call n gets the id `toolu_palisade_<n>`. A request of the main agent (one that offers the Bash
tool) gets the next call not yet answered by a tool_result in its messages; after the last one,
and for side requests (titles, summaries), a short text. Every request body is appended to
REQUESTS.jsonl, so the test can read each tool_result: what the tool returned, or a hook's
reason for refusing it. The port (chosen by the OS) is written to PORT once listening.
"""
import argparse
import itertools
import json
import os
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

ID_PREFIX = "toolu_palisade_"


def parse_args():
    p = argparse.ArgumentParser()
    p.add_argument("--script", required=True)
    p.add_argument("--log", required=True)
    p.add_argument("--port-file", required=True)
    return p.parse_args()


ARGS = parse_args()
with open(ARGS.script) as f:
    STEPS = json.load(f)
MESSAGE_IDS = itertools.count(1)


def answered_steps(messages):
    """How many scripted calls already came back with a tool_result."""
    done = set()
    for m in messages:
        content = m.get("content")
        if m.get("role") != "user" or not isinstance(content, list):
            continue
        for block in content:
            if block.get("type") == "tool_result":
                tid = str(block.get("tool_use_id", ""))
                if tid.startswith(ID_PREFIX):
                    done.add(tid)
    return len(done)


def reply_blocks(request):
    tools = {t.get("name") for t in request.get("tools") or []}
    n = answered_steps(request.get("messages") or [])
    if "Bash" in tools and n < len(STEPS):
        step = STEPS[n]
        block = {"type": "tool_use", "id": f"{ID_PREFIX}{n}", "name": step["name"], "input": step["input"]}
        return [block], "tool_use"
    return [{"type": "text", "text": "done"}], "end_turn"


def as_events(message):
    """The streaming form of a message: start, one start/delta/stop per block, delta, stop."""
    start = dict(message, content=[], stop_reason=None)
    events = [{"type": "message_start", "message": start}]
    for i, block in enumerate(message["content"]):
        if block["type"] == "text":
            events.append({"type": "content_block_start", "index": i, "content_block": {"type": "text", "text": ""}})
            events.append({"type": "content_block_delta", "index": i, "delta": {"type": "text_delta", "text": block["text"]}})
        else:
            events.append({"type": "content_block_start", "index": i,
                           "content_block": dict(block, input={})})
            events.append({"type": "content_block_delta", "index": i,
                           "delta": {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}})
        events.append({"type": "content_block_stop", "index": i})
    events.append({"type": "message_delta", "delta": {"stop_reason": message["stop_reason"], "stop_sequence": None},
                   "usage": {"output_tokens": message["usage"]["output_tokens"]}})
    events.append({"type": "message_stop"})
    return "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events).encode()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def send(self, code, body, content_type="application/json"):
        self.send_response(code)
        self.send_header("content-type", content_type)
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        self.send(200, b'{"data": [], "has_more": false}')

    def do_HEAD(self):
        self.send(200, b"")

    def do_POST(self):
        raw = self.rfile.read(int(self.headers.get("content-length") or 0))
        try:
            request = json.loads(raw)
        except ValueError:
            request = {}
        with open(ARGS.log, "a") as log:
            log.write(json.dumps({"path": self.path, "body": request}) + "\n")
        if "count_tokens" in self.path:
            return self.send(200, b'{"input_tokens": 100}')
        blocks, stop = reply_blocks(request)
        message = {
            "id": f"msg_palisade_{next(MESSAGE_IDS)}", "type": "message", "role": "assistant",
            "model": request.get("model", "claude-scripted"), "content": blocks,
            "stop_reason": stop, "stop_sequence": None,
            "usage": {"input_tokens": 50, "output_tokens": 20},
        }
        if request.get("stream"):
            self.send(200, as_events(message), "text/event-stream")
        else:
            self.send(200, json.dumps(message).encode())


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
with open(ARGS.port_file + ".tmp", "w") as f:
    f.write(str(server.server_address[1]))
# Renamed into place so the test never reads a half-written port.
os.replace(ARGS.port_file + ".tmp", ARGS.port_file)
server.serve_forever()
