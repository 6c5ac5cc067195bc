"""Time of the Daleks' rules, one module per part of a Doctor's turn (prepare, travel, the
adventure, the dice and the abilities that change them, resolving the adventure, the Daleks'
phase, the anomalies, the obligations a turn leaves): kernels only, over :mod:`..layout`;
``rules.py`` dispatches an action to them."""
