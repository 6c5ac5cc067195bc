"""Scripted TARDIS Run positions with chosen paddle faces, through the real code.

``rig_paddles`` moves the state's generator counter to a point where the
next draws give the wanted faces, so a scripted roll goes through the same
``step`` kernel as every game.
"""

import numpy as np

import tardis_envs
from tardis_envs.core.rng import hash_words
from tardis_envs.core.state import RNG_COUNTER, RNG_KEY

# Paddle order of the roll code: white 1, white 1, white 2, white 2, black.
WHITE_FACES_FOR = {
    0: (0, 0, 0, 0),
    1: (1, 0, 0, 0),
    2: (0, 0, 1, 0),
    3: (1, 0, 1, 0),
    4: (0, 0, 1, 1),
    5: (1, 0, 1, 1),
    6: (1, 1, 1, 1),
}


def rig_paddles(state: np.ndarray, faces) -> np.ndarray:
    """A copy of ``state`` whose next coin draws are exactly ``faces`` (0/1)."""
    out = state.copy()
    key = out[RNG_KEY]
    counter = int(out[RNG_COUNTER])
    while True:
        if all(int(hash_words(key, counter + i) >> np.uint64(63)) == f for i, f in enumerate(faces)):
            out[RNG_COUNTER] = counter
            return out
        counter += 1


def new_env(**options):
    env = tardis_envs.make("tardis_run_v0", illegal_action="raise", **options)
    env.reset(seed=0)
    return env


def setup(env, faces=None, **position):
    """Put ``env`` into a built position, with the next roll rigged to ``faces``."""
    raw = env.unwrapped
    state = raw.game.position(**position)
    if faces is not None:
        state = rig_paddles(state, faces)
    raw.set_state(state)
    return raw
