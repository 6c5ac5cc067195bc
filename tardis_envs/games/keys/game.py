"""Keys to the TARDIS bound to its options: tables, state checks, words and drawing hooks."""

from __future__ import annotations

import numpy as np

from ...core.game import Game, GameSpec, Kernels
from ...core.options import Option
from ...core.state import CURRENT_PLAYER, REWARDS, RUNNING, STATUS, STATUS_NAMES, TERMINATED
from . import ENV_ID, batch, check, heuristic, hidden, rules
from .content import (
    CARD_NAMES,
    CENTRE,
    GRID,
    NUM_CARD_TYPES,
    NUM_TILES,
    SEAT_SIDES,
    SIDE_NAMES,
    TILE_KINDS,
    build_tables,
    compass,
    load_components,
    square_index,
    square_name,
)
from .rules import (
    A_BARRIER,
    A_BONUS,
    A_BONUS_DECLINE,
    A_COOKIE,
    A_CYBERMAN,
    A_DISCARD,
    A_ENTER,
    A_KEY,
    A_LEAVE,
    A_MOVE,
    A_PANDORICA,
    A_SONIC,
    A_TUNNEL,
    A_UNBAR,
    BONUS_USED,
    DECK_SIZE,
    DISCARD,
    EXTRA_TURN_PENDING,
    HAND,
    LAST_SEAT,
    LAST_TELEPORTED,
    LAST_TILE,
    LAST_TILE2,
    NUM_ACTIONS,
    NUM_CORNERS,
    OBS_SIZE,
    PANDORICA,
    PAWN,
    PHASE,
    PHASE_BONUS,
    PHASE_MOVE,
    PHASE_OVER,
    PHASE_PLAY,
    STATE_SIZE,
    TURN,
    WINNER,
)

PHASE_NAMES = {PHASE_PLAY: "play_card", PHASE_BONUS: "key_tile_bonus", PHASE_MOVE: "move", PHASE_OVER: "game_over"}
FRAME_DIRECTION_NAMES = ("forward", "right", "back", "left", "forward-right", "back-right", "back-left", "forward-left")

SPEC = GameSpec(
    env_id=ENV_ID,
    name="Keys to the TARDIS",
    version=0,
    rulebook="Keys to the TARDIS",
    min_players=2,
    max_players=4,
    chance=True,
    hidden_information=True,
    status="complete",
    utility="general_sum",
    throughput_target=3e6,
    first_run_seconds=40,
    options={
        "num_players": Option(2, "players, seated south/north (2), +west (3), +east (4)", kind=int, choices=(2, 3, 4)),
        "reveal_tiles": Option(False, "show every tile's kind from the start", kind=bool),
        "max_turns": Option(400, "turns (one player's turn each) before truncation", kind=int, minimum=1),
    },
)


# The state's layout up to tardis_envs commit 4abd339 (541 words), where it differs from
# now: after the header, a word per tile for each of colour, kind, open, revealed, barrier
# and cookie (EARLIER_BOARD_WORDS); a word per grid corner for the tunnels (0 none, else the
# orientation); the pawns, Pandorica turns, bonuses and hands as now; a word per card of
# the draw pile (-1 past its size); from DECK_SIZE on as now.
EARLIER_BOARD_WORDS = 6 * NUM_TILES
EARLIER_TUNNEL = rules.HEADER_SIZE + EARLIER_BOARD_WORDS
EARLIER_PAWN = EARLIER_TUNNEL + NUM_CORNERS
EARLIER_DECK = EARLIER_PAWN + (rules.DECK - rules.PAWN)
EARLIER_DECK_SIZE = EARLIER_DECK + rules.MAX_CARDS
EARLIER_STATE_SIZE = EARLIER_DECK_SIZE + (STATE_SIZE - DECK_SIZE)


class KeysToTheTardis(Game):
    """Keys to the TARDIS; see :mod:`tardis_envs.keys_to_the_tardis_v0` for the documentation page."""

    spec = SPEC
    kernels = Kernels.of(rules, batch, hidden, check, heuristic)
    game_over = (PHASE, PHASE_OVER)

    def _build(self) -> None:
        self.components = load_components()
        n = self.options["num_players"]
        self.tables = build_tables(self.components, n, self.options["max_turns"], self.options["reveal_tiles"])
        self.num_players = n
        self.sides = SEAT_SIDES[n]
        self.agent_names = tuple(SIDE_NAMES[s] for s in self.sides)
        self.num_actions = NUM_ACTIONS
        self.observation_shape = (OBS_SIZE,)
        self.observation_high = 1.0
        self.state_size = STATE_SIZE
        self.max_game_length = 3 * self.options["max_turns"]
        # a shuffle step of the door tiles or of the deck
        self.max_chance_outcomes = max(NUM_TILES - 1, int(self.tables[rules.T_CARD_COUNT : rules.T_CARD_COUNT + NUM_CARD_TYPES].sum()))

    def _observation_denominators(self) -> np.ndarray:
        """Hands count cards out of 4, the deck out of every card, each discard pile out of its
        card type's count, Pandorica turns out of ``pandorica_turns``; the rest are 0/1."""
        denominators = np.ones(OBS_SIZE, dtype=np.int64)
        card_counts = self.tables[rules.T_CARD_COUNT : rules.T_CARD_COUNT + NUM_CARD_TYPES]
        denominators[rules.S_HAND : rules.S_HAND + NUM_CARD_TYPES] = 4
        denominators[rules.S_OPPONENT_HAND : rules.S_OPPONENT_HAND + 3] = 4
        denominators[rules.S_DECK] = card_counts.sum()
        denominators[rules.S_DISCARD : rules.S_DISCARD + NUM_CARD_TYPES] = card_counts
        denominators[rules.S_PANDORICA : rules.S_PANDORICA + 4] = self.tables[rules.T_PANDORICA_TURNS]
        return denominators

    # --- helpers ---------------------------------------------------------------
    def hand(self, state: np.ndarray, seat: int) -> dict[str, int]:
        base = HAND + NUM_CARD_TYPES * seat
        return {CARD_NAMES[c]: int(state[base + c]) for c in range(NUM_CARD_TYPES) if state[base + c]}

    def cards_on_board(self, state: np.ndarray) -> dict[int, int]:
        return {
            rules.CARD_BARRIER: int(rules.tile_facts(state, rules.TIME_BARRIERS).sum()),
            rules.CARD_COOKIE: int(rules.tile_facts(state, rules.JAM_COOKIES).sum()),
            rules.CARD_TUNNEL: int(np.count_nonzero(rules.tunnel_orientations(state))),
            rules.CARD_PANDORICA: int(np.count_nonzero(state[PANDORICA : PANDORICA + self.num_players])),
        }

    def card_totals(self, state: np.ndarray) -> np.ndarray:
        """Cards of each type across deck, hands, discard pile and board."""
        totals = np.zeros(NUM_CARD_TYPES, dtype=np.int64)
        deck = rules.deck_cards(state)[: int(state[DECK_SIZE])]
        totals += np.bincount(deck, minlength=NUM_CARD_TYPES)[:NUM_CARD_TYPES]
        for seat in range(self.num_players):
            totals += state[HAND + NUM_CARD_TYPES * seat : HAND + NUM_CARD_TYPES * (seat + 1)]
        totals += state[DISCARD : DISCARD + NUM_CARD_TYPES]
        for card, count in self.cards_on_board(state).items():
            totals[card] += count
        return totals

    def _from_earlier_layout(self, state: np.ndarray) -> np.ndarray:
        """A state of the layout before the board's facts became sets of tiles and the draw
        pile was packed (up to tardis_envs commit 4abd339, ``EARLIER_STATE_SIZE`` words: one
        word per tile for each of colour, kind, open, revealed, barrier and cookie, and one
        per card of the draw pile), rewritten in the current layout; any other array as it is."""
        if state.ndim != 1 or state.shape[0] != EARLIER_STATE_SIZE or not np.issubdtype(state.dtype, np.integer):
            return state
        fields = state[rules.HEADER_SIZE : rules.HEADER_SIZE + EARLIER_BOARD_WORDS].astype(np.int64).reshape(6, NUM_TILES)
        colours, kinds, flags = fields[0], fields[1], fields[2:]
        if ((colours < -1) | (colours >= rules.NUM_COLOURS)).any() or ((kinds < 0) | (kinds >= rules.NUM_KINDS)).any():
            raise ValueError(f"{self.spec.env_id}: corrupt state (earlier layout): tile colours or kinds out of range")
        if not np.isin(flags, (0, 1)).all():
            raise ValueError(f"{self.spec.env_id}: corrupt state (earlier layout): tile flags must be 0 or 1")
        bits = np.int64(1) << np.arange(NUM_TILES, dtype=np.int64)
        current = np.zeros(STATE_SIZE, dtype=np.int64)
        current[: rules.HEADER_SIZE] = state[: rules.HEADER_SIZE]
        for facts, flag in zip((rules.DOORS_OPEN, rules.KINDS_REVEALED, rules.TIME_BARRIERS, rules.JAM_COOKIES), flags):
            current[facts] = int(bits[flag == 1].sum())
        for c in range(rules.NUM_COLOURS):
            current[rules.COLOUR_TILES + c] = int(bits[colours == c].sum())
        for k in range(rules.NUM_KINDS):
            current[rules.KIND_TILES + k] = int(bits[kinds == k].sum())
        orientations = state[EARLIER_TUNNEL:EARLIER_PAWN].astype(np.int64)
        if not np.isin(orientations, (0, 1, 2)).all():
            raise ValueError(f"{self.spec.env_id}: corrupt state (earlier layout): tunnel orientation must be 0, 1 or 2")
        for corner in np.flatnonzero(orientations):
            rules.set_tunnel(current, int(corner), int(orientations[corner]))
        current[rules.PAWN : rules.DECK] = state[EARLIER_PAWN:EARLIER_DECK]
        size = int(state[EARLIER_DECK_SIZE])
        deck = state[EARLIER_DECK : EARLIER_DECK + max(min(size, rules.MAX_CARDS), 0)].astype(np.int64)
        if not 0 <= size <= rules.MAX_CARDS or ((deck < 0) | (deck >= NUM_CARD_TYPES)).any():
            raise ValueError(f"{self.spec.env_id}: corrupt state (earlier layout): deck")
        rules.set_deck_cards(current, deck)
        current[DECK_SIZE:] = state[EARLIER_DECK_SIZE:]
        return current

    # --- position builder ---------------------------------------------------------------
    def position(
        self,
        key: int = 0,
        tiles: dict | None = None,
        pawns: dict | None = None,
        hands: dict | None = None,
        to_move: int = 0,
        phase: str = "play_card",
        tunnels: list | None = None,
        pandorica: dict | None = None,
    ) -> np.ndarray:
        """Build a scripted position from the opening of ``key``.

        ``tiles`` maps squares ('c4') to dicts with any of ``colour``, ``kind``
        (swapped with a tile that has them, so the tile set stays whole),
        ``open``, ``revealed``, ``barrier``, ``cookie``; ``pawns`` maps seats to a
        square or None; ``hands`` maps seats to ``{card name: count}``;
        ``tunnels`` lists square pairs; ``pandorica`` maps seats to turns left.
        Cards placed on the board or in hands come out of the deck, so the 68
        cards stay accounted for. The result is validated like ``set_state``.
        """
        state = self.new_state(key)
        colours = self.components.colours

        def take_from_deck(card: int) -> None:
            deck = rules.deck_cards(state)[: int(state[DECK_SIZE])].tolist()
            if card not in deck:
                raise ValueError(f"{self.spec.env_id}: no {CARD_NAMES[card]} left in the deck for this position")
            deck.remove(card)
            rules.set_deck_cards(state, deck)

        if hands:
            for seat, cards in hands.items():
                base = HAND + NUM_CARD_TYPES * seat
                deck = rules.deck_cards(state)[: int(state[DECK_SIZE])].tolist()
                for c in range(NUM_CARD_TYPES):  # return the dealt cards to the deck
                    deck += [c] * int(state[base + c])
                    state[base + c] = 0
                rules.set_deck_cards(state, deck)
                for name, count in cards.items():
                    card = CARD_NAMES.index(name)
                    for _ in range(count):
                        take_from_deck(card)
                    state[base + card] = count
        for square, spec in (tiles or {}).items():
            t = square_index(square)
            if "colour" in spec or "kind" in spec:
                face_colours, face_kinds = rules.tile_colours(state), rules.tile_kinds(state)
                colour = colours.index(spec.get("colour", colours[face_colours[t]]))
                kind = TILE_KINDS.index(spec.get("kind", TILE_KINDS[face_kinds[t]]))
                others = [
                    u
                    for u in range(NUM_TILES)
                    if face_colours[u] == colour and face_kinds[u] == kind and u not in (t, CENTRE) and square_name(u) not in (tiles or {})
                ]
                if (face_colours[t], face_kinds[t]) != (colour, kind):
                    if not others:
                        raise ValueError(f"{self.spec.env_id}: no spare {colours[colour]} {TILE_KINDS[kind]} tile to put on {square}")
                    u = others[0]  # the two tiles trade faces
                    rules.set_tile_colour(state, u, face_colours[t])
                    rules.set_tile_kind(state, u, face_kinds[t])
                    rules.set_tile_colour(state, t, colour)
                    rules.set_tile_kind(state, t, kind)
            for flag, facts in (("open", rules.DOORS_OPEN), ("revealed", rules.KINDS_REVEALED)):
                if flag in spec:
                    rules.set_on_tile(state, facts, t, int(spec[flag]))
            if spec.get("open"):
                rules.set_on_tile(state, rules.KINDS_REVEALED, t, 1)
            for flag, facts, card in (
                ("barrier", rules.TIME_BARRIERS, rules.CARD_BARRIER),
                ("cookie", rules.JAM_COOKIES, rules.CARD_COOKIE),
            ):
                if spec.get(flag):
                    take_from_deck(card)
                    rules.set_on_tile(state, facts, t, 1)
        for a, b in tunnels or []:
            corner, orientation = rules.corner_of(square_index(a), square_index(b))
            take_from_deck(rules.CARD_TUNNEL)
            rules.set_tunnel(state, corner, orientation)
        for seat, square in (pawns or {}).items():
            state[PAWN + seat] = -1 if square is None else square_index(square)
        for seat, turns in (pandorica or {}).items():
            take_from_deck(rules.CARD_PANDORICA)
            state[PANDORICA + seat] = turns
        state[CURRENT_PLAYER] = to_move
        state[PHASE] = {v: k for k, v in PHASE_NAMES.items()}[phase]
        return self.check_state(state)

    # --- words ---------------------------------------------------------------
    def describe(self, state: np.ndarray) -> dict:
        """The whole state in the game's words (this is the full, omniscient view).

        Keys: ``num_players``, ``turn``, ``phase``, ``status``, ``current_player``,
        ``extra_turn_pending``, ``winner``, ``rewards``, ``grid`` (square ->
        colour, kind, open, revealed, barrier, cookie, pawn), ``tunnels`` (square
        pairs), ``players`` (per seat: side, pawn square, Pandorica turns left,
        bonus squares used, hand by card), ``deck_size``, ``discard`` (by card),
        ``last_action`` (seat, text, squares touched, teleported).
        """
        n = self.num_players
        colours = self.components.colours
        pawns = {int(state[PAWN + s]): self.agent_names[s] for s in range(n) if state[PAWN + s] >= 0}
        grid = {}
        tile_colours, tile_kinds = rules.tile_colours(state), rules.tile_kinds(state)
        facts = {
            name: rules.tile_facts(state, at)
            for name, at in (
                ("open", rules.DOORS_OPEN),
                ("revealed", rules.KINDS_REVEALED),
                ("barrier", rules.TIME_BARRIERS),
                ("cookie", rules.JAM_COOKIES),
            )
        }
        for t in range(NUM_TILES):
            colour = int(tile_colours[t])
            grid[square_name(t)] = {
                "colour": colours[colour] if colour >= 0 else None,
                "kind": TILE_KINDS[int(tile_kinds[t])],
                **{name: bool(on[t]) for name, on in facts.items()},
                "pawn": pawns.get(t),
            }
        tunnels = []
        for k, o in enumerate(rules.tunnel_orientations(state).tolist()):
            if o:
                r, c = divmod(k, GRID - 1)
                a, b = (r * GRID + c, (r + 1) * GRID + c + 1) if o == 1 else (r * GRID + c + 1, (r + 1) * GRID + c)
                tunnels.append([square_name(a), square_name(b)])
        players = {}
        for s in range(n):
            used = [square_name(t) for t in range(NUM_TILES) if (int(state[BONUS_USED + s]) >> t) & 1]
            pawn = int(state[PAWN + s])
            players[self.agent_names[s]] = {
                "pawn": square_name(pawn) if pawn >= 0 else None,
                "pandorica_turns": int(state[PANDORICA + s]),
                "bonus_used": used,
                "hand": self.hand(state, s),
                "hand_size": int(state[HAND + NUM_CARD_TYPES * s : HAND + NUM_CARD_TYPES * (s + 1)].sum()),
            }
        status = int(state[STATUS])
        last = None
        if state[LAST_SEAT] >= 0:
            seat = int(state[LAST_SEAT])
            last = {
                "player": self.agent_names[seat],
                "squares": [square_name(int(t)) for t in (state[LAST_TILE], state[LAST_TILE2]) if t >= 0],
                "teleported": bool(state[LAST_TELEPORTED]),
            }
        return self.with_ending(
            state,
            {
                "num_players": n,
                "turn": int(state[TURN]),
                "phase": PHASE_NAMES[int(state[PHASE])],
                "status": STATUS_NAMES[status],
                "current_player": self.agent_names[int(state[CURRENT_PLAYER])] if status == RUNNING else None,
                "extra_turn_pending": bool(state[EXTRA_TURN_PENDING]),
                "winner": self.agent_names[int(state[WINNER])] if status == TERMINATED else None,
                "rewards": {self.agent_names[s]: int(state[REWARDS + s]) for s in range(n)},
                "grid": grid,
                "tunnels": tunnels,
                "players": players,
                "deck_size": int(state[DECK_SIZE]),
                "discard": {CARD_NAMES[c]: int(state[DISCARD + c]) for c in range(NUM_CARD_TYPES) if state[DISCARD + c]},
                "last_action": last,
            },
        )

    def action_to_string(self, state: np.ndarray, action: int) -> str:
        """Table talk for ``action`` of the player to move (absolute squares and compass)."""
        if not 0 <= action < NUM_ACTIONS:
            raise ValueError(f"{self.spec.env_id}: action {action} is outside 0..{NUM_ACTIONS - 1}")
        seat = int(state[CURRENT_PLAYER])
        side = self.sides[seat]
        colours = self.components.colours

        def square(rel: int) -> str:
            return square_name(int(rules.rel_to_abs(side, rel)))

        def verb(rel: int) -> str:
            return "close" if rules.on_tile(state, rules.DOORS_OPEN, rules.rel_to_abs(side, rel)) else "open"

        def direction(d: int) -> str:
            return compass(*[int(x) for x in rules.abs_direction(side, d)])

        if action < A_SONIC:
            t = action - A_KEY
            colour = int(rules.tile_colour(state, rules.rel_to_abs(side, t)))
            name = colours[colour] if colour >= 0 else "no"
            return f"play {name} key: {verb(t)} {square(t)}"
        if action < A_UNBAR:
            return f"play sonic screwdriver: {verb(action - A_SONIC)} {square(action - A_SONIC)}"
        if action < A_BARRIER:
            return f"play sonic screwdriver: remove barrier {square(action - A_UNBAR)}"
        if action < A_COOKIE:
            return f"play time barrier on {square(action - A_BARRIER)}"
        if action < A_TUNNEL:
            return f"play jam cookie on {square(action - A_COOKIE)}"
        if action < A_PANDORICA:
            k, o = divmod(action - A_TUNNEL, 2)
            a, b = rules.tunnel_tiles(side, k, o)
            a, b = sorted((int(a), int(b)))
            return f"play time tunnel {square_name(a)}-{square_name(b)}"
        if action < A_CYBERMAN:
            j = action - A_PANDORICA
            return f"play pandorica on {self._opponent(seat, j)}"
        if action < A_DISCARD:
            j, d = divmod(action - A_CYBERMAN, 8)
            return f"play cyberman assault: push {self._opponent(seat, j)} {direction(d)}"
        if action < A_BONUS:
            return f"discard {CARD_NAMES[action - A_DISCARD]}"
        if action < A_BONUS_DECLINE:
            return f"key tile: {verb(action - A_BONUS)} {square(action - A_BONUS)}"
        if action == A_BONUS_DECLINE:
            return "key tile: decline"
        if action < A_ENTER:
            return f"move {direction(action - A_MOVE)}"
        if action < A_LEAVE:
            return f"enter {square(action - A_ENTER)}"
        if action == A_LEAVE:
            return "leave the grid"
        return "stay"

    def _opponent(self, seat: int, j: int) -> str:
        if j + 1 >= self.num_players:
            return f"opponent {j + 1}"
        return self.agent_names[(seat + j + 1) % self.num_players]

    def string_to_action(self, state: np.ndarray, text: str) -> int:
        """Inverse of :meth:`action_to_string` in the current state; the
        open/close word may be either (``play red key: c4`` also works)."""
        wanted = " ".join(str(text).lower().split())
        relaxed = wanted.replace(": open ", ": ").replace(": close ", ": ")
        for action in range(NUM_ACTIONS):
            said = self.action_to_string(state, action)
            if said == wanted or said.replace(": open ", ": ").replace(": close ", ": ") == relaxed:
                return action
        raise ValueError(f"{self.spec.env_id}: unknown action {text!r}; e.g. 'play red key: open c4', 'move north', 'stay'")

    # --- drawing ---------------------------------------------------------------
    def render_ansi(self, state: np.ndarray) -> str:
        from .render import render_ansi

        return render_ansi(self, state)

    def render_rgb(self, state: np.ndarray) -> np.ndarray:
        from .render import render_rgb

        return render_rgb(self, state)
