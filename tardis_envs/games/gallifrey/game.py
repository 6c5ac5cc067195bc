"""Ghosts of Gallifrey duel bound to its options: tables, state checks, words and drawing hooks."""

from __future__ import annotations

import numpy as np

from ...core.game import Game, GameSpec, Kernels
from ...core.options import Option
from . import ENV_ID, SIMULTANEOUS, batch, check, heuristic, hidden, layout, notation, observe, rules
from .content import (
    DECK_SIZE,
    MAX_ACQUIRED,
    MODES,
    T_MAX_EXCHANGES,
    T_NUM_CHARACTERS,
    T_NUM_SCENES,
    THREATS,
    Content,
    build_tables,
    load_content,
)
from .layout import (
    LAYOUT_VERSION,
    NUM_ACTIONS,
    OBS_SIZE,
    PHASE,
    PHASE_OVER,
    STATE_SIZE,
)
from .notation import healing_schedule


def _pair_check(value: str) -> str | None:
    if value == "random":
        return None
    names = [part.strip() for part in value.split(",")]
    if len(names) != 2:
        return "write 'random' or two roster names separated by a comma, e.g. 'The Doctor, Dalek'"
    try:
        for name in names:
            load_content().character_index(name)
    except ValueError as exc:
        return str(exc)
    return None


def _scene_check(value: str) -> str | None:
    if value == "random":
        return None
    try:
        load_content().scene_index(value)
    except ValueError as exc:
        return str(exc)
    return None


SPEC = GameSpec(
    env_id=ENV_ID,
    name="Ghosts of Gallifrey duel",
    version=1,
    rulebook="Ghosts of Gallifrey",
    min_players=2,
    max_players=2,
    chance=True,
    hidden_information=True,
    status="complete",
    utility="zero_sum",
    throughput_target=10e6,
    first_run_seconds=25,
    simultaneous=SIMULTANEOUS,
    options={
        "mode": Option("climactic", "how combat is handled", kind=str, choices=MODES),
        "threat": Option("dangerous", "the Threat Level: which defeat conditions may be chosen", kind=str, choices=THREATS),
        "forced_draw_p": Option(
            0.25, "chance per side and exchange that the GM insists on a Time Card", kind=float, minimum=0.0, maximum=1.0
        ),
        "max_exchanges": Option(50, "exchanges before the fight is truncated as a draw", kind=int, minimum=1),
        "pair": Option("random", "'random' (drawn each episode) or two roster names, 'The Doctor, Dalek'", kind=str, check=_pair_check),
        "scene": Option("random", "'random' (drawn each episode) or a scene name", kind=str, check=_scene_check),
    },
)


class GallifreyDuel(Game):
    """Ghosts of Gallifrey duel; see :mod:`tardis_envs.gallifrey_duel_v1` for the documentation page."""

    spec = SPEC
    kernels = Kernels.of(rules, observe, batch, hidden, check, heuristic)
    layout_version = LAYOUT_VERSION
    earlier_layouts = check.EARLIER_LAYOUTS
    game_over = (PHASE, PHASE_OVER)

    def _build(self) -> None:
        self.content: Content = load_content()
        o = self.options
        pair = (-1, -1)
        if o["pair"] != "random":
            first, second = (part.strip() for part in o["pair"].split(","))
            pair = (self.content.character_index(first), self.content.character_index(second))
        scene = -1 if o["scene"] == "random" else self.content.scene_index(o["scene"])
        self.tables = build_tables(self.content, o["mode"], o["threat"], o["forced_draw_p"], o["max_exchanges"], pair, scene)
        observe.fill_aspect_entries(self.tables)
        self.num_players = 2
        self.agent_names = ("first", "second")
        self.num_actions = NUM_ACTIONS
        self.observation_shape = (OBS_SIZE,)
        self.observation_low = -1.0
        self.observation_high = 1.0
        self.state_size = STATE_SIZE
        self.max_game_length = 2 * o["max_exchanges"]
        # a shuffle step of the deck, a character or scene drawn for the pairing
        self.max_chance_outcomes = int(max(DECK_SIZE, self.tables[T_NUM_CHARACTERS], self.tables[T_NUM_SCENES]))

    def _observation_denominators(self) -> np.ndarray:
        """Aspects out of 10, injuries and fight values out of 16, Edges out of 3, card levels
        out of 3, acquired modifiers and escalations out of 2, the deck out of 36 cards, the
        exchange out of ``max_exchanges``; the rest are 0/1 (the entries in layout.py)."""
        r = layout
        d = np.ones(OBS_SIZE, dtype=np.int64)
        d[r.O_OWN_ASPECTS : r.O_OPP_EFFECTIVE + 4] = 10
        d[r.O_INJURIES : r.O_KILLED_AT + 2] = 16
        d[r.O_EDGES : r.O_EDGES + 2] = 3
        for i in range(3):
            d[r.O_ACQUIRED + 3 * i + 1 : r.O_ACQUIRED + 3 * i + 3] = 2
        d[r.O_DECK_SIZE] = DECK_SIZE
        d[r.O_EXCHANGE] = max(int(self.tables[T_MAX_EXCHANGES]), 1)
        for k in range(2):
            base = r.O_LAST + k * r.LAST_BLOCK
            d[base + r.LB_LEVELS] = 3
            d[base + r.LB_ATTACK_VALUE : base + r.LB_INJURIES + 1] = 16
        return d

    # --- words (notation.py) ---------------------------------------------------------
    def acquired_names(self, state: np.ndarray, seat: int) -> list[str]:
        """:func:`.notation.acquired_names`."""
        return notation.acquired_names(self, state, seat)

    def action_words(self, action: int, acquired: list[str]) -> str:
        """:func:`.notation.action_words`."""
        return notation.action_words(self, action, acquired)

    def action_to_string(self, state: np.ndarray, action: int) -> str:
        """:func:`.notation.action_to_string`."""
        return notation.action_to_string(self, state, action)

    def string_to_action(self, state: np.ndarray, text: str) -> int:
        """:func:`.notation.string_to_action`."""
        return notation.string_to_action(self, state, text)

    def narrate(self, state: np.ndarray) -> str | None:
        """:func:`.notation.narrate`."""
        return notation.narrate(self, state)

    def describe(self, state: np.ndarray) -> dict:
        """:func:`.notation.describe`."""
        return notation.describe(self, state)

    # --- drawing ---------------------------------------------------------------
    def render_ansi(self, state: np.ndarray) -> str:
        from .render import render_ansi

        return render_ansi(self, state)

    def render_rgb(self, state: np.ndarray) -> np.ndarray:
        from .render import render_rgb

        return render_rgb(self, state)


__all__ = ["GallifreyDuel", "SPEC", "healing_schedule", "MAX_ACQUIRED"]
