#!/usr/bin/env python3
"""OpenClaw's legacy context engine over clawspec protocol v1, in plain Python.

A minimal example of an engine in another language (see docs/protocol.md):
ingest -> {ingested: false}; assemble -> the messages unchanged with
estimatedTokens 0; compact -> delegated to the runtime (host/delegateCompaction),
as openclaw `src/context-engine/legacy.ts` does. It accepts `messageDelta`
(docs/protocol.md, "Message deltas"), so each message crosses the pipe once:
`DeltaDecoder` rebuilds the full `messages` arrays before `handle` sees them.

    clawspec certify --engine "python3 examples/python/legacy_engine.py"
"""
import json
import sys

_next_host_id = 1_000_000


def send(obj):
    sys.stdout.write(json.dumps(obj, separators=(",", ":")) + "\n")
    sys.stdout.flush()


def host_request(method, params):
    """Call back into the host while handling a request; wait for its answer."""
    global _next_host_id
    _next_host_id += 1
    my_id = _next_host_id
    send({"jsonrpc": "2.0", "id": my_id, "method": method, "params": params})
    for line in sys.stdin:
        msg = json.loads(line)
        if msg.get("id") == my_id and "method" not in msg:
            if "error" in msg:
                raise RuntimeError(msg["error"]["message"])
            return msg["result"]
        # notifications such as $/abort may arrive meanwhile; legacy ignores them
    raise EOFError("host closed stdin")


def handle(method, params):
    if method == "initialize":
        if params.get("protocolVersion") != 1:
            raise ProtocolVersion()
        return {
            "protocolVersion": 1,
            "info": {"id": "legacy", "name": "Legacy Context Engine", "version": "1.0.0"},
            "methods": [],
            "implementation": {"name": "legacy_engine.py", "version": "0.1.0", "language": "python"},
        }
    if method == "ingest":
        return {"ingested": False}
    if method == "assemble":
        return {"messages": params["messages"], "estimatedTokens": 0}
    if method == "compact":
        return host_request("host/delegateCompaction", params)
    if method == "shutdown":
        return {}
    raise NotImplementedError(method)


class ProtocolVersion(Exception):
    pass


class BadDelta(Exception):
    pass


class DeltaDecoder:
    """`messageDelta` v1: `params.messages` may arrive as
    {"$delta": {"base": <request id>, "keep": K, "append": [...]}} = the first K
    messages of the array request `base` carried, then `append`. Remembers, per
    method, the latest request that carried `messages` (only those are bases)."""

    def __init__(self):
        self.slots = {}  # method -> (request id, messages)

    def decode(self, req):
        params = req.get("params")
        if not isinstance(params, dict):
            return
        m = params.get("messages")
        if isinstance(m, dict) and list(m) == ["$delta"]:
            params["messages"] = self.rebuild(m["$delta"])
        if isinstance(params.get("messages"), list):
            self.slots[req["method"]] = (req["id"], params["messages"])

    def rebuild(self, d):
        if not isinstance(d, dict):
            raise BadDelta("$delta must be an object")
        keep, append = d.get("keep"), d.get("append")
        if not isinstance(keep, int) or isinstance(keep, bool) or keep < 0:
            raise BadDelta("$delta.keep must be a non-negative integer")
        if not isinstance(append, list):
            raise BadDelta("$delta.append must be an array")
        base = [msgs for (rid, msgs) in self.slots.values() if rid == d.get("base")]
        if not base:
            raise BadDelta(f"$delta.base {d.get('base')!r} is not the latest request of its method that carried messages")
        if keep > len(base[0]):
            raise BadDelta(f"$delta.keep {keep} exceeds the {len(base[0])} messages of request {d.get('base')!r}")
        # A new list: the remembered one is never changed by a handler.
        return base[0][:keep] + append


def main():
    deltas = None
    for line in sys.stdin:
        if not line.strip():
            continue
        req = json.loads(line)
        if "id" not in req:
            continue  # notifications
        try:
            if req["method"] == "initialize":
                offered = ((req.get("params") or {}).get("offers") or {}).get("messageDelta") == 1
                deltas = DeltaDecoder() if offered else None
            elif deltas is not None:
                deltas.decode(req)
            result = handle(req["method"], req.get("params") or {})
            if req["method"] == "initialize" and deltas is not None:
                result["messageDelta"] = 1
            send({"jsonrpc": "2.0", "id": req["id"], "result": result})
            if req["method"] == "shutdown":
                return 0
        except BadDelta as e:
            send({"jsonrpc": "2.0", "id": req["id"], "error": {"code": -32602, "message": f"bad message delta: {e}"}})
        except ProtocolVersion:
            send({"jsonrpc": "2.0", "id": req["id"], "error": {"code": -32010, "message": "unsupported protocol version", "data": {"supported": [1]}}})
        except NotImplementedError as e:
            send({"jsonrpc": "2.0", "id": req["id"], "error": {"code": -32601, "message": f"method not implemented: {e}"}})
        except Exception as e:  # a throw inside the engine method
            send({"jsonrpc": "2.0", "id": req["id"], "error": {"code": -32000, "message": str(e)}})
    return 0


if __name__ == "__main__":
    sys.exit(main())
