"""Classic-chess perft of Dr. Who Chess's numba move generator next to the
``chess`` library, on the standard perft positions, as a ratio.

    python benchmarks/perft.py [--seconds 3] [--fen kiwipete --depth 4] [--divide]

The same as ``tardis-envs perft`` (see tardis_envs/bench.py: ``perft_suite``).
Both sides count the last ply in bulk; the counts must agree or it fails.
"""

import sys

from tardis_envs.cli import main

if __name__ == "__main__":
    sys.exit(main(["perft", *sys.argv[1:]]))
