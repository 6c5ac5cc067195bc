"""Legal actions of Keys to the TARDIS, enumerated slowly from ``describe()``.

Written from the rulebook and the rulings in absolute squares and compass
words; it shares no code with the kernels (no frames, no offsets). It returns
the set of table-talk strings of the legal actions, so comparing it with the
mask checks the mask and the notation together.
"""

FILES = "abcdefg"
CENTRE = "d4"
COMPASS = {
    "north": (1, 0),
    "south": (-1, 0),
    "east": (0, 1),
    "west": (0, -1),
    "north-east": (1, 1),
    "north-west": (1, -1),
    "south-east": (-1, 1),
    "south-west": (-1, -1),
}
EDGE = {  # own edge row and goal row of each side, as predicates on (rank, file) 0-based
    "south": (lambda r, f: r == 0, lambda r, f: r == 6),
    "north": (lambda r, f: r == 6, lambda r, f: r == 0),
    "west": (lambda r, f: f == 0, lambda r, f: f == 6),
    "east": (lambda r, f: f == 6, lambda r, f: f == 0),
}


def name(r, f):
    return f"{FILES[f]}{r + 1}"


def coords(sq):
    return int(sq[1]) - 1, FILES.index(sq[0])


def squares():
    return [name(r, f) for r in range(7) for f in range(7)]


def tunnel_between(info, a, b):
    return sorted([a, b]) in [sorted(t) for t in info["tunnels"]]


def standable(info, sq):
    t = info["grid"][sq]
    return sq != CENTRE and t["open"] and not t["barrier"] and t["pawn"] is None and (t["kind"] != "dalek" or t["cookie"])


def step_to(info, sq, word):
    r, f = coords(sq)
    dr, df = COMPASS[word]
    if not (0 <= r + dr < 7 and 0 <= f + df < 7):
        return None
    target = name(r + dr, f + df)
    if dr and df:
        if not tunnel_between(info, sq, target) or not info["grid"][sq]["open"] or not info["grid"][target]["open"]:
            return None
    return target if standable(info, target) else None


def can_toggle(info, sq):
    t = info["grid"][sq]
    if sq == CENTRE or t["barrier"]:
        return False
    return not t["open"] or (t["pawn"] is None and not t["cookie"])


def legal_strings(info, mover):
    out = set()
    players = list(info["players"])
    me = info["players"][mover]
    hand = me["hand"]
    verb = lambda sq: "close" if info["grid"][sq]["open"] else "open"  # noqa: E731
    if info["phase"] == "play_card":
        for sq in squares():
            t = info["grid"][sq]
            if can_toggle(info, sq):
                if hand.get(f"{t['colour']} key"):
                    out.add(f"play {t['colour']} key: {verb(sq)} {sq}")
                if hand.get("sonic screwdriver"):
                    out.add(f"play sonic screwdriver: {verb(sq)} {sq}")
            if t["barrier"] and hand.get("sonic screwdriver"):
                out.add(f"play sonic screwdriver: remove barrier {sq}")
            if hand.get("time barrier") and sq != CENTRE and not t["barrier"] and t["pawn"] is None:
                out.add(f"play time barrier on {sq}")
            if hand.get("jam cookie") and t["kind"] == "dalek" and t["revealed"] and not t["cookie"] and not t["barrier"]:
                out.add(f"play jam cookie on {sq}")
        if hand.get("time tunnel"):
            used_blocks = set()
            for a, b in info["tunnels"]:
                (ra, fa), (rb, fb) = coords(a), coords(b)
                used_blocks.add((min(ra, rb), min(fa, fb)))
            for r in range(6):
                for f in range(6):
                    if (r, f) in used_blocks:
                        continue
                    for a, b in ((name(r, f), name(r + 1, f + 1)), (name(r, f + 1), name(r + 1, f))):
                        if CENTRE not in (a, b):
                            out.add("play time tunnel " + "-".join(sorted([a, b], key=lambda s: coords(s))))
        k = players.index(mover)
        for j in range(1, len(players)):
            other = players[(k + j) % len(players)]
            them = info["players"][other]
            if them["pawn"] is None or them["pandorica_turns"]:
                continue
            if hand.get("pandorica"):
                out.add(f"play pandorica on {other}")
            if hand.get("cyberman assault"):
                for word in COMPASS:
                    if step_to(info, them["pawn"], word):
                        out.add(f"play cyberman assault: push {other} {word}")
        for card, count in hand.items():
            if count:
                out.add(f"discard {card}")
    elif info["phase"] == "move":
        out.add("stay")
        if me["pandorica_turns"]:
            return out
        edge, _ = EDGE[mover]
        if me["pawn"] is None:
            for sq in squares():
                if edge(*coords(sq)) and standable(info, sq):
                    out.add(f"enter {sq}")
        else:
            for word in COMPASS:
                if step_to(info, me["pawn"], word):
                    out.add(f"move {word}")
            if me["pawn"] != CENTRE and edge(*coords(me["pawn"])):
                out.add("leave the grid")
    elif info["phase"] == "key_tile_bonus":
        out.add("key tile: decline")
        for sq in squares():
            if sq != me["pawn"] and can_toggle(info, sq):
                out.add(f"key tile: {verb(sq)} {sq}")
    return out
