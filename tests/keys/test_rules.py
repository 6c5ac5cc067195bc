"""Scripted Keys to the TARDIS positions: every card type, every tile kind, each restriction.

Squares are absolute: files a-g west to east, ranks 1-7 south to north; the
Control Tile is d4. South (seat 0) enters on rank 1 and wins on rank 7; north
(seat 1, two players) the other way round.
"""

import pytest

import tardis_envs
from tardis_envs.core.state import HEADER_SIZE
from tardis_envs.games.keys import board, content, layout, rules


def door(colour, kind="plain", **flags):
    """A tile spec for ``position``: colour, kind and flags (open, revealed, barrier, cookie)."""
    return {"colour": colour, "kind": kind, **flags}


def new_env(**options):
    env = tardis_envs.make("keys_to_the_tardis_v0", illegal_action="raise", **options)
    env.reset(seed=0)
    return env


def setup(env, **position):
    raw = env.unwrapped
    raw.set_state(raw.game.position(**position))
    return raw


def legal(env):
    raw = env.unwrapped
    return {raw.action_to_string(a) for a in raw.legal_actions()}


def act(env, text):
    raw = env.unwrapped
    assert text in legal(env), f"{text!r} not legal; legal: {sorted(legal(env))}"
    env.step(raw.string_to_action(text))


def grid(env, square):
    return env.unwrapped.describe()["grid"][square]


def player(env, name):
    return env.unwrapped.describe()["players"][name]


# --- cards ---------------------------------------------------------------
def test_key_toggles_only_its_colour_anywhere():
    env = new_env()
    setup(env, tiles={"c4": door("blue", "plain"), "f6": door("red", "plain")}, hands={0: {"blue key": 1, "time barrier": 1}})
    assert "play blue key: open c4" in legal(env)
    assert "play blue key: open f6" not in legal(env) and not any(s.startswith("play red key") for s in legal(env))
    act(env, "play blue key: open c4")
    assert grid(env, "c4")["open"] and grid(env, "c4")["revealed"]
    assert player(env, "south")["hand"] == {"time barrier": 1}
    assert env.unwrapped.describe()["discard"] == {"blue key": 1}


def test_key_closes_an_open_door_but_not_an_occupied_one():
    env = new_env()
    setup(env, tiles={"c1": door("green", open=True), "e1": door("green", open=True)}, pawns={1: "e1"}, hands={0: {"green key": 1}})
    assert "play green key: close c1" in legal(env)
    assert "play green key: close e1" not in legal(env)
    act(env, "play green key: close c1")
    assert not grid(env, "c1")["open"]


def test_sonic_screwdriver_toggles_any_door_or_removes_a_barrier_only():
    env = new_env()
    setup(env, tiles={"b2": door("yellow"), "f3": door("red", barrier=True)}, hands={0: {"sonic screwdriver": 1}})
    moves = legal(env)
    assert "play sonic screwdriver: open b2" in moves
    assert "play sonic screwdriver: remove barrier f3" in moves
    assert "play sonic screwdriver: open f3" not in moves  # barriers block opening
    act(env, "play sonic screwdriver: remove barrier f3")
    assert not grid(env, "f3")["barrier"] and not grid(env, "f3")["open"]  # that is all it does
    assert env.unwrapped.describe()["discard"] == {"sonic screwdriver": 1, "time barrier": 1}


def test_time_barrier_placement_and_what_it_blocks():
    env = new_env()
    setup(
        env,
        tiles={"c1": door("red", open=True), "d1": door("red", open=True), "e1": door("red")},
        pawns={1: "d1"},
        hands={0: {"time barrier": 1, "red key": 2}},
    )
    moves = legal(env)
    assert "play time barrier on c1" in moves and "play time barrier on e1" in moves  # open or closed
    assert "play time barrier on d1" not in moves  # occupied
    assert "play time barrier on d4" not in moves  # Control Tile
    act(env, "play time barrier on c1")
    assert grid(env, "c1")["barrier"]
    # the barrier blocks opening/closing and entering
    setup(
        env,
        tiles={"c1": door("red", open=True, barrier=True), "e1": door("red", barrier=True)},
        hands={0: {"red key": 2, "time barrier": 1}},
        phase="play_card",
    )
    moves = legal(env)
    assert not any(s.endswith(" c1") or s.endswith(" e1") for s in moves if "key" in s)
    assert "play time barrier on c1" not in moves  # no stacking
    setup(env, tiles={"c1": door("red", open=True, barrier=True)}, phase="move")
    assert "enter c1" not in legal(env)


def test_time_tunnel_links_diagonal_tiles_when_both_ends_are_open():
    env = new_env()
    setup(
        env,
        tiles={"b2": door("red", open=True), "c3": door("red"), "c2": door("blue"), "b3": door("blue")},
        pawns={0: "b2"},
        hands={0: {"time tunnel": 1}},
    )
    moves = legal(env)
    assert "play time tunnel b2-c3" in moves and "play time tunnel c2-b3" in moves
    assert not any("d4" in s for s in moves if "tunnel" in s)  # never the Control Tile
    act(env, "play time tunnel b2-c3")
    assert env.unwrapped.describe()["tunnels"] == [["b2", "c3"]]
    # c3 is closed: the tunnel cannot be used yet
    assert "move north-east" not in legal(env)
    setup(
        env,
        tiles={"b2": door("red", open=True), "c3": door("red", open=True)},
        tunnels=[("b2", "c3")],
        pawns={0: "b2"},
        phase="move",
        hands={0: {"time tunnel": 1}},
    )
    assert "move north-east" in legal(env)
    act(env, "move north-east")
    assert player(env, "south")["pawn"] == "c3"
    # one tunnel per corner
    setup(env, tunnels=[("b2", "c3")], hands={0: {"time tunnel": 1}})
    assert not {"play time tunnel b2-c3", "play time tunnel c2-b3"} & legal(env)


def test_jam_cookie_on_a_revealed_dalek_door_opens_it_for_good():
    env = new_env()
    setup(env, tiles={"c2": door("blue", "dalek", revealed=True), "e2": door("green", "dalek")}, hands={0: {"jam cookie": 1}})
    moves = legal(env)
    assert "play jam cookie on c2" in moves
    assert "play jam cookie on e2" not in moves  # its kind is still hidden
    act(env, "play jam cookie on c2")
    assert grid(env, "c2")["open"] and grid(env, "c2")["cookie"]
    setup(
        env,
        tiles={"c2": door("blue", "dalek", open=True, cookie=True), "c1": door("red", open=True)},
        pawns={0: "c1"},
        hands={0: {"blue key": 1, "sonic screwdriver": 1, "time barrier": 1}},
    )
    moves = legal(env)
    assert "play blue key: close c2" not in moves and "play sonic screwdriver: close c2" not in moves
    assert "play time barrier on c2" in moves  # it can still take a barrier
    setup(env, tiles={"c2": door("blue", "dalek", open=True, cookie=True), "c1": door("red", open=True)}, pawns={0: "c1"}, phase="move")
    assert "move north" in legal(env)  # passable


def test_pandorica_traps_for_two_of_the_owners_turns():
    env = new_env()
    raw = setup(
        env,
        tiles={"d7": door("red", open=True), "d6": door("red", open=True)},
        pawns={1: "d7"},
        hands={0: {"pandorica": 1, "red key": 1}, 1: {"sonic screwdriver": 3}},
    )
    act(env, "play pandorica on north")
    assert player(env, "north")["pandorica_turns"] == 2
    assert "play pandorica on north" not in legal(env)
    if raw.describe()["phase"] == "move":
        act(env, "stay")
    for _turn in range(2):  # north's next two turns: cards yes, moves no (phase skipped)
        assert env.agent_selection == "north" and raw.describe()["phase"] == "play_card"
        hand = player(env, "north")["hand_size"]
        act(env, "discard sonic screwdriver") if "discard sonic screwdriver" in legal(env) else env.step(raw.legal_actions()[0])
        assert env.agent_selection == "south", "north's move phase is skipped"
        assert player(env, "north")["hand_size"] == hand - 1
        env.step(raw.legal_actions()[-1])  # south discards something
        if raw.describe()["phase"] == "move":
            act(env, "stay")
    assert player(env, "north")["pandorica_turns"] == 0
    assert raw.describe()["discard"].get("pandorica") == 1


def test_cyberman_assault_pushes_only_to_legal_tiles():
    env = new_env()
    setup(
        env,
        tiles={"d6": door("red", open=True), "c6": door("red", open=True), "e6": door("blue"), "d5": door("blue", "dalek", open=True)},
        pawns={1: "d6"},
        hands={0: {"cyberman assault": 1}},
    )
    moves = {s for s in legal(env) if s.startswith("play cyberman")}
    assert moves == {"play cyberman assault: push north west"} | (
        {"play cyberman assault: push north north"} if grid(env, "d7")["open"] else set()
    )
    act(env, "play cyberman assault: push north west")
    assert player(env, "north")["pawn"] == "c6"


def test_cyberman_push_onto_a_teleport_tile_teleports():
    env = new_env()
    setup(
        env,
        tiles={"c6": door("red", open=True), "b6": door("green", "teleport", open=True), "c5": door("yellow", "key_tile", open=True)},
        pawns={1: "c6"},
        hands={0: {"cyberman assault": 2}},
    )
    act(env, "play cyberman assault: push north west")
    assert player(env, "north")["pawn"] == "d4"
    assert env.unwrapped.describe()["last_action"]["teleported"]


def test_cyberman_push_onto_the_key_tile_gives_no_bonus():
    env = new_env()
    setup(
        env,
        tiles={"c6": door("red", open=True), "c5": door("yellow", "key_tile", open=True)},
        pawns={1: "c6"},
        hands={0: {"cyberman assault": 2}},
    )
    act(env, "play cyberman assault: push north south")
    assert player(env, "north")["pawn"] == "c5"
    assert player(env, "north")["bonus_used"] == []
    assert env.unwrapped.describe()["phase"] != "key_tile_bonus"


def test_cyberman_push_onto_the_goal_row_wins_for_the_pushed_player():
    env = new_env()
    setup(env, tiles={"c2": door("red", open=True), "c1": door("red", open=True)}, pawns={1: "c2"}, hands={0: {"cyberman assault": 1}})
    act(env, "play cyberman assault: push north south")
    info = env.unwrapped.describe()
    assert info["winner"] == "north" and env.rewards == {"south": -1.0, "north": 1.0}


def test_any_card_may_be_discarded():
    env = new_env()
    setup(env, hands={0: {"red key": 1, "pandorica": 1, "time tunnel": 2}})
    assert {s for s in legal(env) if s.startswith("discard")} == {"discard red key", "discard pandorica", "discard time tunnel"}
    act(env, "discard pandorica")
    assert env.unwrapped.describe()["discard"] == {"pandorica": 1}


# --- tiles and movement ---------------------------------------------------------------
def test_enter_only_onto_open_standable_tiles_of_the_own_edge():
    env = new_env()
    setup(
        env,
        tiles={"a1": door("red", open=True), "b1": door("red"), "c1": door("red", "dalek", open=True), "a2": door("blue", open=True)},
        phase="move",
    )
    enters = {s for s in legal(env) if s.startswith("enter")}
    assert "enter a1" in enters and "enter b1" not in enters and "enter c1" not in enters
    assert "enter a2" not in enters
    act(env, "enter a1")
    assert player(env, "south")["pawn"] == "a1"


def test_step_back_off_the_grid_from_the_own_edge_row():
    env = new_env()
    setup(env, tiles={"a1": door("red", open=True), "a2": door("red", open=True)}, pawns={0: "a1"}, phase="move")
    assert "leave the grid" in legal(env)
    act(env, "leave the grid")
    assert player(env, "south")["pawn"] is None
    setup(env, tiles={"a1": door("red", open=True), "a2": door("red", open=True)}, pawns={0: "a2"}, phase="move")
    assert "leave the grid" not in legal(env)


def test_plain_and_dalek_doors():
    env = new_env()
    setup(
        env,
        tiles={
            "b1": door("red", open=True),
            "b2": door("red", "plain", open=True),
            "c1": door("blue", "dalek", open=True),
            "a1": door("blue"),
        },
        pawns={0: "b1"},
        phase="move",
    )
    moves = legal(env)
    assert "move north" in moves  # open plain door
    assert "move east" not in moves  # open Dalek door
    assert "move west" not in moves  # closed door
    assert "move north-east" not in moves  # no tunnel


def test_no_two_pawns_on_a_tile():
    env = new_env()
    setup(env, tiles={"b1": door("red", open=True), "b2": door("red", open=True)}, pawns={0: "b1", 1: "b2"}, phase="move")
    assert "move north" not in legal(env)


def test_key_tile_bonus_once_per_player_per_tile():
    env = new_env()
    setup(
        env,
        tiles={"b1": door("red", open=True), "b2": door("green", "key_tile", open=True), "f5": door("yellow")},
        pawns={0: "b1"},
        phase="move",
    )
    act(env, "move north")
    assert env.unwrapped.describe()["phase"] == "key_tile_bonus" and env.agent_selection == "south"
    moves = legal(env)
    assert "key tile: open f5" in moves and "key tile: decline" in moves and "key tile: close b2" not in moves
    act(env, "key tile: open f5")
    assert grid(env, "f5")["open"] and player(env, "south")["bonus_used"] == ["b2"]
    assert env.agent_selection == "north"
    # back onto the same tile: no second bonus for south
    setup(env, tiles={"b1": door("red", open=True), "b2": door("green", "key_tile", open=True)}, pawns={0: "b1"}, phase="move")
    raw = env.unwrapped
    state = raw.get_state()
    state[layout.BONUS_USED + 0] = 1 << (1 * 7 + 1)
    raw.set_state(state)
    act(env, "move north")
    assert raw.describe()["phase"] == "play_card" and env.agent_selection == "north"


def test_key_tile_bonus_is_per_player():
    env = new_env()
    setup(env, tiles={"b7": door("red", open=True), "b6": door("green", "key_tile", open=True)}, pawns={1: "b7"}, phase="move", to_move=1)
    raw = env.unwrapped
    state = raw.get_state()
    state[layout.BONUS_USED + 0] = 1 << (5 * 7 + 1)  # south used b6 already
    raw.set_state(state)
    act(env, "move south")
    assert raw.describe()["phase"] == "key_tile_bonus"


def test_extra_turn_tile_gives_one_full_extra_turn():
    env = new_env()
    raw = setup(env, tiles={"b1": door("red", open=True), "b2": door("green", "extra_turn", open=True)}, pawns={0: "b1"}, phase="move")
    hand = player(env, "south")["hand_size"]
    act(env, "move north")
    info = raw.describe()
    assert env.agent_selection == "south" and info["phase"] == "play_card"
    assert player(env, "south")["hand_size"] == hand + 1  # drew for the extra turn
    assert player(env, "south")["bonus_used"] == ["b2"]


def test_teleport_tile_jumps_to_a_free_control_tile():
    env = new_env()
    setup(env, tiles={"b1": door("red", open=True), "b2": door("green", "teleport", open=True)}, pawns={0: "b1"}, phase="move")
    act(env, "move north")
    assert player(env, "south")["pawn"] == "d4"
    # with the Control Tile occupied the pawn stays on the Teleport tile
    setup(env, tiles={"b1": door("red", open=True), "b2": door("green", "teleport", open=True)}, pawns={0: "b1", 1: "d4"}, phase="move")
    act(env, "move north")
    assert player(env, "south")["pawn"] == "b2"


def test_control_tile_is_left_by_normal_steps_and_never_stepped_onto():
    env = new_env()
    setup(env, tiles={"d5": door("red", open=True), "d3": door("red", open=True)}, pawns={0: "d4"}, phase="move")
    moves = legal(env)
    assert {"move north", "move south"} <= moves
    setup(env, tiles={"d3": door("red", open=True)}, pawns={0: "d3"}, phase="move")
    assert "move north" not in legal(env)


def test_reaching_the_opposite_edge_wins_at_once():
    env = new_env()
    setup(env, tiles={"c6": door("red", open=True), "c7": door("red", open=True)}, pawns={0: "c6"}, phase="move")
    act(env, "move north")
    info = env.unwrapped.describe()
    assert info["winner"] == "south" and info["status"] == "terminated"
    assert env.rewards == {"south": 1.0, "north": -1.0}


def test_three_player_rewards_and_seats():
    env = new_env(num_players=3)
    assert env.possible_agents == ["south", "west", "north"]
    setup(env, tiles={"f3": door("red", open=True), "g3": door("red", open=True)}, pawns={1: "f3"}, phase="move", to_move=1)
    assert "move east" in legal(env)  # west's forward is east
    act(env, "move east")
    assert env.rewards == {"south": -1.0, "west": 1.0, "north": -1.0}


def test_actions_are_in_the_movers_frame():
    env = new_env()
    raw = setup(env, tiles={"c7": door("red", open=True), "c6": door("red", open=True)}, pawns={1: "c7"}, phase="move", to_move=1)
    forward = layout.A_MOVE + 0
    assert raw.action_to_string(forward) == "move south"  # north's forward is south
    assert raw.legal_actions() == sorted([forward, layout.A_LEAVE, layout.A_STAY])


def test_deck_is_refilled_from_the_discards():
    env = new_env()
    raw = env.unwrapped
    state = raw.get_state()
    # move the whole deck to the discard pile
    size = int(state[layout.DECK_SIZE])
    for card in board.deck_cards(state)[:size]:
        state[layout.DISCARD + card] += 1
    board.set_deck_cards(state, [])
    raw.set_state(state)
    discards = sum(raw.describe()["discard"].values())
    env.step(raw.legal_actions()[-1])  # a discard
    if raw.describe()["phase"] == "move":
        env.step(layout.A_STAY)
    info = raw.describe()
    assert info["deck_size"] == discards + 1 - 1  # all discards reshuffled, one drawn
    assert sum(info["discard"].values()) == 0
    assert raw.game.card_totals(raw.get_state()).sum() == 68


def test_max_turns_truncates():
    env = new_env(max_turns=4)
    raw = env.unwrapped
    while not any(env.truncations.values()) and not any(env.terminations.values()):
        env.step(raw.legal_actions()[-1])
    assert all(env.truncations.values()) and raw.describe()["turn"] == 4
    assert set(env.rewards.values()) == {0.0}


def test_reveal_tiles_option():
    env = tardis_envs.make("keys_to_the_tardis_v0", reveal_tiles=True)
    env.reset(seed=0)
    assert all(t["revealed"] for t in env.unwrapped.describe()["grid"].values())
    env = tardis_envs.make("keys_to_the_tardis_v0")
    env.reset(seed=0)
    assert sum(t["revealed"] for t in env.unwrapped.describe()["grid"].values()) == 1  # the Control Tile
    with pytest.raises(ValueError, match="option 'num_players' got 5"):
        tardis_envs.make("keys_to_the_tardis_v0", num_players=5)
    with pytest.raises(ValueError, match="option 'reveal_tiles' got 1"):
        tardis_envs.make("keys_to_the_tardis_v0", reveal_tiles=1)


def test_opening_layout_and_deal():
    env = new_env(num_players=4)
    info = env.unwrapped.describe()
    grid_ = info["grid"]
    assert grid_["d4"]["kind"] == "control"
    assert not any(t["open"] for sq, t in grid_.items() if sq != "d4")
    kinds = [t["kind"] for t in grid_.values()]
    assert kinds.count("plain") == 28 and kinds.count("dalek") == 8
    assert kinds.count("key_tile") == kinds.count("extra_turn") == kinds.count("teleport") == 4
    sizes = {name: p["hand_size"] for name, p in info["players"].items()}
    assert sizes == {"south": 4, "west": 3, "north": 3, "east": 3}
    assert info["deck_size"] == 68 - 13
    layouts = set()
    for seed in range(5):
        env.reset(seed=seed)
        layouts.add(tuple(t["kind"] for t in env.unwrapped.describe()["grid"].values()))
    assert len(layouts) == 5


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_the_tile_card_actions_follow_each_tiles_rules_over_random_games(num_players):
    """The play mask writes every tile's five card actions (Key, Sonic Screwdriver,
    unbar, Time Barrier, Jam Cookie) without a branch on the board; each entry must
    still be what the tile's rules say, stated here tile by tile (and ``can_toggle`` must agree)."""
    import numpy as np

    game = tardis_envs.env_module("keys_to_the_tardis_v0").Game(num_players=num_players)
    rng = np.random.default_rng(num_players)
    state = game.new_state(1)
    mask = np.zeros(game.num_actions, dtype=np.int8)
    checked = 0
    for _ in range(1500):
        rules.legal_mask(state, game.tables, mask)
        if state[rules.STATUS] != rules.RUNNING:
            state = game.new_state(int(rng.integers(1000)))
            continue
        if state[layout.PHASE] == layout.PHASE_PLAY:
            seat = state[rules.CURRENT_PLAYER]
            side = board.seat_side(game.tables, seat)
            hand = layout.HAND + content.NUM_CARD_TYPES * seat
            for t in range(content.NUM_TILES):
                a = board.rel_to_abs(side, t)
                barred = board.on_tile(state, layout.TIME_BARRIERS, a) == 1
                free = board.pawn_on(state, game.tables, a) < 0
                # the door rule, stated here tile by tile: no barrier, not the Control Tile;
                # closing an open door needs no Jam Cookie and no pawn on it
                is_open = board.on_tile(state, layout.DOORS_OPEN, a) == 1
                cookie_on = board.on_tile(state, layout.JAM_COOKIES, a) == 1
                toggleable = a != content.CENTRE and not barred and (not is_open or (not cookie_on and free))
                assert toggleable == board.can_toggle(state, game.tables, a)
                colour = board.tile_colour(state, a)
                expected = {
                    layout.A_KEY: toggleable and state[hand + layout.CARD_KEY + colour] > 0,
                    layout.A_SONIC: toggleable and state[hand + layout.CARD_SONIC] > 0,
                    layout.A_UNBAR: barred and state[hand + layout.CARD_SONIC] > 0,
                    layout.A_BARRIER: state[hand + layout.CARD_BARRIER] > 0 and a != content.CENTRE and not barred and free,
                    layout.A_COOKIE: state[hand + layout.CARD_COOKIE] > 0
                    and board.tile_kind(state, a) == layout.KIND_DALEK
                    and board.on_tile(state, layout.KINDS_REVEALED, a) == 1
                    and not cookie_on
                    and not barred,
                }
                for offset, legal_there in expected.items():
                    assert mask[offset + t] == legal_there, (offset, t)
            checked += 1
        rules.step(state, game.tables, int(rng.choice(np.flatnonzero(mask))))
    assert checked > 300


def test_a_state_saved_under_the_earlier_layout_loads_as_the_same_position():
    """States that ``get_state()`` returned before the board's facts became sets of tiles
    (541 words: a word per tile for each fact, a word per card of the draw pile), saved by that code with its ``describe()``
    (tests/keys/data/earlier_layout_states.json), load into the current layout as the
    same position and play on; a corrupt one is refused, naming what is wrong."""
    import json
    from pathlib import Path

    import numpy as np

    from tardis_envs.games.keys.check import EARLIER_DECK, EARLIER_DECK_SIZE, EARLIER_STATE_SIZE

    records = json.loads((Path(__file__).parent / "data" / "earlier_layout_states.json").read_text())
    for record in records:
        env = tardis_envs.make("keys_to_the_tardis_v0", **record["options"])
        env.reset(seed=0)
        saved = np.array(record["state"], dtype=np.int64)
        assert saved.size == EARLIER_STATE_SIZE
        env.unwrapped.set_state(saved)
        assert env.unwrapped.describe() == record["describe"]
        # the draw pile in order (describe gives its size only): a word per card in the earlier layout
        size = int(saved[EARLIER_DECK_SIZE])
        assert board.deck_cards(env.unwrapped.get_state())[:size].tolist() == saved[EARLIER_DECK : EARLIER_DECK + size].tolist()
        assert env.unwrapped.get_state().size == layout.STATE_SIZE < EARLIER_STATE_SIZE
        for _ in range(5):
            if env.terminations[env.agent_selection] or env.truncations[env.agent_selection]:
                break
            env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    corrupt = np.array(records[0]["state"], dtype=np.int64)
    corrupt[HEADER_SIZE + 3] = 7  # a colour that does not exist
    env = tardis_envs.make("keys_to_the_tardis_v0", **records[0]["options"])
    env.reset(seed=0)
    with pytest.raises(ValueError, match="earlier layout.*colours or kinds"):
        env.unwrapped.set_state(corrupt)
