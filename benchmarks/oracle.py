"""How much luck and hidden information decide a game: an ``az`` agent's search against an
opponent, played fairly and as an oracle, on the same seeds.

The oracle is the same network and the same number of simulations, with a search that keeps
the real game's generator in every simulation (it knows the dice and draws the game will
roll on the line it takes) and reads what is hidden (the other hands, the deck order, the
duel's committed choice; ``GuidedSearch(clairvoyant=True)``). No player can be it; its win
rate says how far knowing the future can take this network's search, so a target above it
is out of reach for the fair agent of the same network and budget, and a fair agent far
below it is held back by what it cannot know rather than by what it plays.

    python benchmarks/oracle.py tardis_run_v0 az:baseline heuristic --games 2000
    python benchmarks/oracle.py gallifrey_duel_v1 az:baseline:sims=128 heuristic
    python benchmarks/oracle.py keys_to_the_tardis_v0 az:baseline heuristic --oracle-only
    python benchmarks/oracle.py time_of_the_daleks_v2 az:baseline az:baseline --oracle-team

In a cooperative game (Time of the Daleks) the second agent is the team-mate and the table is
the team's win rate; ``--oracle-team`` makes every team-mate the oracle too (it must be the
same az spec), so the table says what a team that all knew the deck would win.
"""

from __future__ import annotations

import argparse


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("env_id")
    parser.add_argument("agent", help="an az agent spec with search, e.g. az:baseline:sims=64")
    parser.add_argument("opponent", help="an agent spec, e.g. heuristic (the team-mate in a cooperative game)")
    parser.add_argument("--games", type=int, default=2000, help="seat-swapped games per match (default 2000)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--oracle-only",
        action="store_true",
        help="play the oracle alone (the fair agent's games are tardis-envs eval's with the same --games and --seed)",
    )
    parser.add_argument(
        "--oracle-team",
        action="store_true",
        help="cooperative games only: the team-mates (the same az spec as the agent) play as the oracle too",
    )
    args = parser.parse_args(argv)

    import tardis_envs
    from agents import make_agent
    from agents.alphazero import AZAgent, parse_spec
    from agents.tournament import format_table, format_team_table, play_match, team_match

    game = tardis_envs.make(args.env_id).unwrapped.game
    if not args.agent.startswith("az:") or parse_spec(args.agent[3:])["net"]:
        parser.error(f"agent {args.agent!r}: an az agent with search (az:<checkpoint.zip>|baseline[:sims=<n>])")
    if args.games <= 0 or args.games % game.num_players:
        parser.error(f"--games {args.games}: a positive multiple of the {game.num_players} players")
    if args.oracle_team and not game.spec.cooperative:
        parser.error(f"--oracle-team: {args.env_id} is competitive; the oracle team is for cooperative games")
    if args.oracle_team and args.opponent != args.agent:
        parser.error(f"--oracle-team: the team-mate {args.opponent!r} must be the agent's own spec {args.agent!r}")
    for oracle in (True,) if args.oracle_only else (False, True):
        agent = make_agent(args.agent, game, seed=args.seed)
        assert isinstance(agent, AZAgent)
        if agent.expectation is not None:
            parser.error(f"agent {args.agent!r} plays search=expectation, which samples no dice to foresee: add :search=gumbel")
        agent.search.clairvoyant = oracle
        name = f"{args.agent} ({'oracle' if oracle else 'fair'})"
        opponent = make_agent(args.opponent, game, seed=args.seed + 1)
        if args.oracle_team:
            assert isinstance(opponent, AZAgent)
            opponent.search.clairvoyant = oracle
        if game.spec.cooperative:
            partner = f"{args.opponent} ({'oracle' if oracle and args.oracle_team else 'fair'})"
            result = team_match(args.env_id, agent, opponent, (name, partner), args.games, seed=args.seed)
            print(format_team_table({name: result}, partner))
        else:
            result = play_match(args.env_id, [agent, opponent], [name, args.opponent], args.games, seed=args.seed)
            print(format_table(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
