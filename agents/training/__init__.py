"""Self-play training of MaskablePPO agents on the batched numba core.

* :mod:`.config`  - ``TrainConfig``: every hyperparameter, documented, loaded from YAML.
* :mod:`.selfplay` - ``SelfPlayVecEnv`` (an SB3 ``VecEnv`` over ``tardis_envs.vector``
  that plays the opponents' moves inside) and ``OpponentPool``.
* :mod:`.aec_gym` - the baseline: one PettingZoo AEC game as a single-agent Gymnasium env.
* :mod:`.train`   - the training run: evaluation, logging, checkpoints, resume, plots.
* :mod:`.az_train` - ``train --algo az``: expert iteration, the network learning its search.
* :mod:`.leaf_table` - ``train --algo az`` for a search over a learned leaf table (Dr. Who
  Chess's alpha-beta, Keys to the TARDIS's turn search): the table fitted in rounds of games.
* :mod:`.rllib_backend`, :mod:`.rllib_train` - the Ray RLlib backend (``train --backend
  rllib``; the ``distributed`` extra): masked PPO module, league, the same run folder.
"""
