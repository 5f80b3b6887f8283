#!/usr/bin/env python3
"""A flat Monte Carlo player against random ones, through protocol v1 (docs/protocol.md): for
each legal action it asks `playout` for a few games played on after it by random bots, the tiles
still to draw dealt anew for each (the player may not know the real order, and without `reseed`
the playouts would draw it); it takes the action whose playouts end best for it, by its lead
over the best other seat. Standard library only; starts `meeple serve --stdio`.

    cargo build --release
    python3 examples/monte_carlo_player.py                   # base game, two players
    python3 examples/monte_carlo_player.py configs/traders-builders.toml --playouts 20
"""

import argparse
import random

from random_player import Meeple, default_program


def lead(scores, seat):
    """The seat's score minus the best of the others'."""
    others = [s for p, s in enumerate(scores) if p != seat]
    return scores[seat] - max(others, default=0)


def value(meeple, game, index, seat, playouts, reseed):
    """The seat's mean lead over the playouts after the legal action at `index`."""
    # The bots' seed is at most a config's (2^63 - 1); the deal's may be any 64-bit number.
    result = meeple.ask("playout", game=game, index=index, count=playouts, reseed=reseed % 2**64,
                        seed=reseed % 2**63)
    return sum(lead(s, seat) for s in result["scores"]) / len(result["scores"])


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("config", nargs="?", help="game config (default: two players, base game)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--playouts", type=int, default=8, help="playouts per legal action")
    parser.add_argument("--meeple", default=default_program(),
                        help="the meeple program (default: target/release/meeple, else meeple on the PATH)")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    meeple = Meeple(args.meeple)
    fields = {"path": args.config} if args.config else {}
    created = meeple.ask("create", seed=args.seed, **fields)
    game, state = created["game"], created["state"]
    reseed = args.seed * 1_000_003
    while not state["over"]:
        seat, legal = state["to_act"], state["legal"]
        if seat == 0 and len(legal) > 1:
            reseed += args.playouts
            best = max(legal, key=lambda a: value(meeple, game, a["index"], seat, args.playouts, reseed))
        else:
            best = rng.choice(legal)
        state = meeple.ask("act", game=game, action=best["action"], brief=True)["state"]
    players = meeple.ask("state", game=game)["state"]["players"]
    for seat, p in enumerate(players):
        who = "Monte Carlo" if seat == 0 else "random"
        print(f"{p['name']:8} ({who:11}) {p['score']:4}")
    meeple.close()


if __name__ == "__main__":
    main()
