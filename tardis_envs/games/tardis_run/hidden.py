"""TARDIS Run has no hidden information: every seat sees the whole board (pieces, the
black paddle, the TARDIS and its passengers ...), so there is nothing to redeal.

``resample_hidden`` is kept here like in every game (ISMCTS and OpenSpiel's
``resample_from_infostate`` call it) and leaves the state as it is.
"""

from __future__ import annotations

from ...core.search import no_hidden as resample_hidden

__all__ = ["resample_hidden"]
