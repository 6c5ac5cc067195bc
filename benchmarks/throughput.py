"""Steps per second of every registered game next to the PettingZoo classic peers.

    python benchmarks/throughput.py [env_id ...] [--seconds 2] [--json out.json]

Same measurements as ``tardis-envs bench`` (see tardis_envs/bench.py): the
PettingZoo AEC loop with random legal actions for our envs and the peers
(connect_four_v3, tictactoe_v3; install the ``bench`` extra), and the batched
API at several batch sizes. Ratios are to connect_four_v3 measured in the same run.
"""
import sys

from tardis_envs.cli import main

if __name__ == "__main__":
    sys.exit(main(["bench", *sys.argv[1:]]))
