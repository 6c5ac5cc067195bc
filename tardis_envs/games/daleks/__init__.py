"""The Time of the Daleks folder: its entry in the registry (:mod:`tardis_envs.games`)."""

ENV_ID = "time_of_the_daleks_v2"
SIMULTANEOUS = False
RETIRED_ENV_IDS = {
    "time_of_the_daleks_v0": "v1: the float rounding of three observation entries; v2: rule fixes; v0 checkpoints load on v2",
    "time_of_the_daleks_v1": (
        "rule fixes: The Stolen Earth places one Dalek, The Teller's Fail cost, Into the Dalek's "
        "tax on Earth, who is asked never depends on hidden cards, a finished adventure is cleared; "
        "v1 checkpoints load on v2"
    ),
}
