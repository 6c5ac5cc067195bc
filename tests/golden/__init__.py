"""Golden playthroughs (OpenSpiel style): every ply of fixed-seed games, stored as JSON lines.

Regenerate after an intended rules/observation change, then review the diff:

    python -m tests.golden.playthrough --update
"""
