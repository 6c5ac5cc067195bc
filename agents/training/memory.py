"""How the training process's memory allocator is set for the az learner.

Each learner step allocates and frees the same few tensors of megabytes (a minibatch's
activations and gradients: 2,048 rows x 256 float32 is 2 MiB). glibc's malloc serves blocks
above its mmap threshold (128 KiB, rising with what is freed, at most 32 MiB) with fresh
mappings and gives the heap's free top back to the system once it passes the trim threshold
(twice the mmap threshold), so such a step, between the different allocations of self-play,
faults its pages in afresh. :func:`keep_freed_memory` serves every block under 32 MiB from the
heap and keeps up to 1 GiB of freed heap for the next step (with the buffer's compiled sampling,
:mod:`agents.training.replay`, 1.02-1.25x on the learner in a run, most at a minibatch of 2,048:
``docs/results/az/README.md``, Throughput).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import platform

M_TRIM_THRESHOLD = -1  # glibc's <malloc.h>
M_MMAP_THRESHOLD = -3
MMAP_THRESHOLD = 32 << 20  # glibc's largest: blocks above it (the replay buffer's arrays) stay mappings
TRIM_THRESHOLD = 1 << 30


def keep_freed_memory() -> bool:
    """Set this process's malloc as the module docstring says; whether it could (glibc only:
    elsewhere nothing changes and False is returned). Called once by the az trainer and its
    self-play workers; it lasts for the process."""
    if platform.system() != "Linux" or platform.libc_ver()[0] != "glibc":
        return False
    libc = ctypes.CDLL(ctypes.util.find_library("c"))
    return bool(libc.mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD)) and bool(libc.mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD))
