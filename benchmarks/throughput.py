"""Steps per second of every registered game next to the peers, in one run.

    python benchmarks/throughput.py [env_id ...] [--seconds 3] [--json out.json] [--png out.png] [--compare old.json]

The same suite as ``tardis-envs bench`` (see tardis_envs/bench.py for what each
figure measures): the PettingZoo AEC loop for our envs and for PettingZoo
classic connect_four_v3, tictactoe_v3 and chess_v6; OpenSpiel chess and
backgammon through Python and in C++; one game in a numba loop; the batched
API at 1..8192 games on 1 and 2 threads; a trivial numba race game as the
floor; cold compile and cached import times; mean random game length.
Install the peers with ``pip install -e ".[bench]"``.
"""

import sys

from tardis_envs.cli import main

if __name__ == "__main__":
    sys.exit(main(["bench", *sys.argv[1:]]))
