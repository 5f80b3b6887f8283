#!/usr/bin/env python3
"""Plays a whole game against meeple through protocol v1 (docs/protocol.md), with nothing but
Python's standard library: starts `meeple serve --stdio` (or talks to a running
`meeple serve --listen` with --server), creates a game, and picks a random legal action for
every seat until the game is over, then prints the scores and checks the replay.

    cargo build --release
    python3 examples/random_player.py                        # base game, two players
    python3 examples/random_player.py configs/traders-builders-tollkeepers.toml --seed 7
    target/release/meeple serve --listen 127.0.0.1:8080 &    # then, over HTTP:
    python3 examples/random_player.py --server http://127.0.0.1:8080
"""

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import urllib.error
import urllib.request


class Meeple:
    """One `meeple serve --stdio` process: send a request, read its reply."""

    def __init__(self, program):
        self.proc = subprocess.Popen(
            [program, "serve", "--stdio"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        self.next_id = 0

    def ask(self, cmd, **fields):
        self.next_id += 1
        request = {"id": self.next_id, "cmd": cmd, **fields}
        self.proc.stdin.write(json.dumps(request) + "\n")
        self.proc.stdin.flush()
        reply = json.loads(self.proc.stdout.readline())
        if not reply["ok"]:
            error = reply["error"]
            raise RuntimeError(f"{cmd}: {error['code']}: {error['message']}")
        return reply["result"]

    def close(self):
        self.proc.stdin.close()
        self.proc.wait()


class MeepleHTTP:
    """A `meeple serve --listen` server: the same commands as HTTP routes, acting with the
    token of the seat that `create` handed out."""

    def __init__(self, url):
        self.url = url.rstrip("/")
        self.tokens = {}

    def request(self, method, path, body=None, token=None):
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.url + path, data=data, method=method)
        if token:
            req.add_header("Authorization", f"Bearer {token}")
        try:
            with urllib.request.urlopen(req) as response:
                reply = json.load(response)
        except urllib.error.HTTPError as e:
            reply = json.load(e)
        if not reply["ok"]:
            error = reply["error"]
            raise RuntimeError(f"{method} {path}: {error['code']}: {error['message']}")
        return reply["result"]

    def ask(self, cmd, **fields):
        if cmd == "version":
            return self.request("GET", "/version")
        if cmd == "create":
            if "path" in fields:  # the server may run elsewhere: send the config itself
                with open(fields.pop("path")) as f:
                    fields["config"] = f.read()
            created = self.request("POST", "/games", fields)
            self.tokens[created["game"]] = [s["token"] for s in created["seats"]]
            return created
        if cmd == "act":
            token = self.tokens[fields["game"]][fields["player"]]
            body = {"index": fields["index"], "seq": fields["seq"]}
            return self.request("POST", f"/games/{fields['game']}/act", body, token)
        if cmd == "save":
            return self.request("GET", f"/games/{fields['game']}/replay")
        if cmd == "verify":
            return self.request("POST", "/verify", fields)
        raise ValueError(cmd)

    def close(self):
        pass


def default_program():
    """The program `cargo build --release` makes here, else a `meeple` on the PATH."""
    built = os.path.join("target", "release", "meeple")
    return built if os.path.exists(built) else shutil.which("meeple") or built


def main():
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0].replace("\n", " "),
    )
    parser.add_argument("config", nargs="?", help="a game config (TOML); default: the base game")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--meeple", default=default_program(),
                        help="the meeple program (default: target/release/meeple, else meeple on the PATH)")
    parser.add_argument("--server", help="a meeple serve --listen server, e.g. http://127.0.0.1:8080")
    args = parser.parse_args()

    rng = random.Random(args.seed)
    meeple = MeepleHTTP(args.server) if args.server else Meeple(args.meeple)
    print("meeple", meeple.ask("version")["meeple"])
    fields = {"seed": args.seed}
    if args.config:
        fields["path"] = args.config
    game = meeple.ask("create", **fields)
    gid, state = game["game"], game["state"]

    actions = 0
    while not state["over"]:
        choice = rng.choice(state["legal"])
        seat = state["to_act"]
        if actions < 6 or choice["action"]["type"] == "choose":
            print(f"{state['players'][seat]['name']}: {choice['text']}")
        # `seq`: refused as stale, not applied to another state, should the game have moved on.
        state = meeple.ask("act", game=gid, index=choice["index"], player=seat, seq=state["seq"])["state"]
        actions += 1

    print(f"\n{actions} actions. Final scores:")
    for p in sorted(state["players"], key=lambda p: -p["score"]):
        parts = ", ".join(f"{k} {v}" for k, v in sorted(p["breakdown"].items()))
        print(f"  {p['name']:8} {p['score']:4}   ({parts})")

    replay = meeple.ask("save", game=gid)["replay"]
    checked = meeple.ask("verify", replay=replay)
    print(f"replay of {checked['actions']} actions verified, state hash {checked['state_hash']}")
    meeple.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
