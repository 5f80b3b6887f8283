#!/usr/bin/env python3
"""Plays a whole game against meeple through protocol v1 (docs/protocol.md), with nothing but
Python's standard library: starts `meeple serve --stdio`, creates a game, and picks a random
legal action for every seat until the game is over, then prints the scores and checks the
replay.

    cargo build --release
    python3 examples/random_player.py                        # base game, two players
    python3 examples/random_player.py configs/traders-builders-tollkeepers.toml --seed 7
"""

import argparse
import json
import random
import subprocess
import sys


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


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("config", nargs="?", help="a game config (TOML); default: the base game")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--meeple", default="target/release/meeple", help="the meeple program")
    args = parser.parse_args()

    rng = random.Random(args.seed)
    meeple = Meeple(args.meeple)
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
        state = meeple.ask("act", game=gid, index=choice["index"], player=seat)["state"]
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
