"""Time of the Daleks' components as kernels: each module reads and changes one kind of thing
in the state (the players' TARDISes and counters, the Timey-Wimey cards, Companions,
Locations and Dilemmas, Dalek markers, the Challenge at hand), for the phases, the
observation and the heuristic alike."""
