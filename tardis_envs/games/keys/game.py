"""Keys to the TARDIS bound to its options: tables, state checks, words and drawing hooks."""

from __future__ import annotations

import numpy as np

from ...core.game import Game, GameSpec, Kernels
from ...core.options import Option
from ...core.state import CURRENT_PLAYER
from . import ENV_ID, batch, board, check, content, heuristic, hidden, layout, notation, observe, rules
from .content import (
    CARD_NAMES,
    CENTRE,
    NUM_CARD_TYPES,
    NUM_TILES,
    SEAT_SIDES,
    SIDE_NAMES,
    TILE_KINDS,
    build_tables,
    load_components,
    square_index,
    square_name,
)
from .layout import (
    DECK_SIZE,
    DISCARD,
    HAND,
    LAYOUT_VERSION,
    NUM_ACTIONS,
    OBS_SIZE,
    PANDORICA,
    PAWN,
    PHASE,
    PHASE_OVER,
    STATE_SIZE,
)
from .notation import PHASE_NAMES

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
        "route_lengths": Option(
            False,
            "add four observation entries: the heuristic's route lengths to the goal row, own then the next seats'",
            kind=bool,
            observation_only=True,
        ),
    },
)


class KeysToTheTardis(Game):
    """Keys to the TARDIS; see :mod:`tardis_envs.keys_to_the_tardis_v0` for the documentation page."""

    spec = SPEC
    kernels = Kernels.of(rules, observe, batch, hidden, check, heuristic)
    layout_version = LAYOUT_VERSION
    earlier_layouts = check.EARLIER_LAYOUTS
    game_over = (PHASE, PHASE_OVER)

    def _build(self) -> None:
        self.components = load_components()
        n = self.options["num_players"]
        o = self.options
        self.tables = build_tables(self.components, n, o["max_turns"], o["reveal_tiles"], o["route_lengths"])
        self.num_players = n
        self.sides = SEAT_SIDES[n]
        self.agent_names = tuple(SIDE_NAMES[s] for s in self.sides)
        self.num_actions = NUM_ACTIONS
        self.observation_shape = (OBS_SIZE + (layout.NUM_ROUTE_ENTRIES if o["route_lengths"] else 0),)
        self.observation_high = 1.0
        self.state_size = STATE_SIZE
        self.max_game_length = 3 * self.options["max_turns"]
        # a shuffle step of the door tiles or of the deck
        self.max_chance_outcomes = max(NUM_TILES - 1, int(self.tables[content.T_CARD_COUNT : content.T_CARD_COUNT + NUM_CARD_TYPES].sum()))

    def _observation_denominators(self) -> np.ndarray:
        """Hands count cards out of 4, the deck out of every card, each discard pile out of its
        card type's count, Pandorica turns out of ``pandorica_turns``, route lengths (option
        ``route_lengths``) tenths of a step out of 300; the rest are 0/1."""
        denominators = np.ones(self.observation_shape[0], dtype=np.int64)
        card_counts = self.tables[content.T_CARD_COUNT : content.T_CARD_COUNT + NUM_CARD_TYPES]
        denominators[layout.S_HAND : layout.S_HAND + NUM_CARD_TYPES] = 4
        denominators[layout.S_OPPONENT_HAND : layout.S_OPPONENT_HAND + 3] = 4
        denominators[layout.S_DECK] = card_counts.sum()
        denominators[layout.S_DISCARD : layout.S_DISCARD + NUM_CARD_TYPES] = card_counts
        denominators[layout.S_PANDORICA : layout.S_PANDORICA + 4] = self.tables[content.T_PANDORICA_TURNS]
        denominators[layout.S_ROUTE : layout.S_ROUTE + layout.NUM_ROUTE_ENTRIES] = layout.ROUTE_TENTHS
        return denominators

    # --- helpers ---------------------------------------------------------------
    def hand(self, state: np.ndarray, seat: int) -> dict[str, int]:
        base = HAND + NUM_CARD_TYPES * seat
        return {CARD_NAMES[c]: int(state[base + c]) for c in range(NUM_CARD_TYPES) if state[base + c]}

    def cards_on_board(self, state: np.ndarray) -> dict[int, int]:
        return {
            layout.CARD_BARRIER: int(board.tile_facts(state, layout.TIME_BARRIERS).sum()),
            layout.CARD_COOKIE: int(board.tile_facts(state, layout.JAM_COOKIES).sum()),
            layout.CARD_TUNNEL: int(np.count_nonzero(board.tunnel_orientations(state))),
            layout.CARD_PANDORICA: int(np.count_nonzero(state[PANDORICA : PANDORICA + self.num_players])),
        }

    def card_totals(self, state: np.ndarray) -> np.ndarray:
        """Cards of each type across deck, hands, discard pile and board."""
        totals = np.zeros(NUM_CARD_TYPES, dtype=np.int64)
        deck = board.deck_cards(state)[: int(state[DECK_SIZE])]
        totals += np.bincount(deck, minlength=NUM_CARD_TYPES)[:NUM_CARD_TYPES]
        for seat in range(self.num_players):
            totals += state[HAND + NUM_CARD_TYPES * seat : HAND + NUM_CARD_TYPES * (seat + 1)]
        totals += state[DISCARD : DISCARD + NUM_CARD_TYPES]
        for card, count in self.cards_on_board(state).items():
            totals[card] += count
        return totals

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
            deck = board.deck_cards(state)[: int(state[DECK_SIZE])].tolist()
            if card not in deck:
                raise ValueError(f"{self.spec.env_id}: no {CARD_NAMES[card]} left in the deck for this position")
            deck.remove(card)
            board.set_deck_cards(state, deck)

        if hands:
            for seat, cards in hands.items():
                base = HAND + NUM_CARD_TYPES * seat
                deck = board.deck_cards(state)[: int(state[DECK_SIZE])].tolist()
                for c in range(NUM_CARD_TYPES):  # return the dealt cards to the deck
                    deck += [c] * int(state[base + c])
                    state[base + c] = 0
                board.set_deck_cards(state, deck)
                for name, count in cards.items():
                    card = CARD_NAMES.index(name)
                    for _ in range(count):
                        take_from_deck(card)
                    state[base + card] = count
        for square, spec in (tiles or {}).items():
            t = square_index(square)
            if "colour" in spec or "kind" in spec:
                face_colours, face_kinds = board.tile_colours(state), board.tile_kinds(state)
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
                    board.set_tile_colour(state, u, face_colours[t])
                    board.set_tile_kind(state, u, face_kinds[t])
                    board.set_tile_colour(state, t, colour)
                    board.set_tile_kind(state, t, kind)
            for flag, facts in (("open", layout.DOORS_OPEN), ("revealed", layout.KINDS_REVEALED)):
                if flag in spec:
                    board.set_on_tile(state, facts, t, int(spec[flag]))
            if spec.get("open"):
                board.set_on_tile(state, layout.KINDS_REVEALED, t, 1)
            for flag, facts, card in (
                ("barrier", layout.TIME_BARRIERS, layout.CARD_BARRIER),
                ("cookie", layout.JAM_COOKIES, layout.CARD_COOKIE),
            ):
                if spec.get(flag):
                    take_from_deck(card)
                    board.set_on_tile(state, facts, t, 1)
        for a, b in tunnels or []:
            corner, orientation = board.corner_of(square_index(a), square_index(b))
            take_from_deck(layout.CARD_TUNNEL)
            board.set_tunnel(state, corner, orientation)
        for seat, square in (pawns or {}).items():
            state[PAWN + seat] = -1 if square is None else square_index(square)
        for seat, turns in (pandorica or {}).items():
            take_from_deck(layout.CARD_PANDORICA)
            state[PANDORICA + seat] = turns
        state[CURRENT_PLAYER] = to_move
        state[PHASE] = {v: k for k, v in PHASE_NAMES.items()}[phase]
        return self.check_state(state)

    # --- words (notation.py) ---------------------------------------------------------
    def describe(self, state: np.ndarray) -> dict:
        """:func:`.notation.describe`."""
        return notation.describe(self, state)

    def action_to_string(self, state: np.ndarray, action: int) -> str:
        """:func:`.notation.action_to_string`."""
        return notation.action_to_string(self, state, action)

    def string_to_action(self, state: np.ndarray, text: str) -> int:
        """:func:`.notation.string_to_action`."""
        return notation.string_to_action(self, state, text)

    # --- drawing ---------------------------------------------------------------
    def render_ansi(self, state: np.ndarray) -> str:
        from .render import render_ansi

        return render_ansi(self, state)

    def render_rgb(self, state: np.ndarray) -> np.ndarray:
        from .render import render_rgb

        return render_rgb(self, state)
