"""Behaviour cloning from a teacher agent: the warm start of a training run.

The batched core plays many games at once with a teacher (the game's heuristic by
default) in every seat and records, at every decision, the mover's observation, its
legal actions, the teacher's choice and, once the game ends, the mover's final reward.
A fraction ``explore`` of the moves actually played are uniformly random legal moves
(the teacher's choice is still the label): without them a deterministic teacher would
play the same few games (chess has no chance at all) and the learner would never see
the positions its own mistakes lead to.

DAgger (Ross, Gordon and Bagnell, 2011) goes one step further: after a first fit, the
*clone* plays (``behaviour=``) while the teacher still labels every decision, the new
decisions join the old ones and the policy is fitted again. The learner is then trained
on the positions its own play reaches, where a clone's small errors compound over a long
game (a cooperative game of ~120 decisions a seat punishes every one of them).

:func:`clone_policy` then fits a MaskablePPO policy to those labels: masked
cross-entropy for the actor, mean squared error to the final reward for the critic,
so that PPO starts from the teacher's play with a value function that already fits
it. Nothing here is specific to a game.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from tardis_envs import vector

from ..base import Agent, uniform_legal


@dataclass
class Demonstrations:
    """Labelled decisions. ``observations`` are stored as float16 (the observation values
    of every game are small integers or coarse fractions; half the memory of float32)."""

    observations: np.ndarray  # float16[n, *obs_shape]
    masks: np.ndarray  # bool[n, num_actions]
    actions: np.ndarray  # int64[n], the teacher's choices
    returns: np.ndarray  # float32[n], the mover's final reward (0 for a game cut off by the budget)
    finished: np.ndarray  # bool[n], whether the decision's game ended within the budget
    game: np.ndarray  # int64[n], the decision's game, numbered from 0 in the recording
    seconds: float = 0.0
    games: int = 0

    def __len__(self) -> int:
        return int(self.actions.shape[0])

    def __add__(self, other: "Demonstrations") -> "Demonstrations":
        return Demonstrations(
            observations=np.concatenate([self.observations, other.observations]),
            masks=np.concatenate([self.masks, other.masks]),
            actions=np.concatenate([self.actions, other.actions]),
            returns=np.concatenate([self.returns, other.returns]),
            finished=np.concatenate([self.finished, other.finished]),
            game=np.concatenate([self.game, other.game + (int(self.game.max()) + 1 if len(self) else 0)]),
            seconds=self.seconds + other.seconds,
            games=self.games + other.games,
        )


def record_teacher(
    env_id: str,
    teacher: Agent,
    decisions: int,
    seed: int = 0,
    num_envs: int = 256,
    explore: float = 0.1,
    options: dict | None = None,
    behaviour: Agent | None = None,
) -> Demonstrations:
    """``decisions`` labelled decisions of ``teacher``; ``teacher`` plays every seat, or
    ``behaviour`` does while ``teacher`` only labels (DAgger; see the module docstring)."""
    if decisions < 1:
        raise ValueError(f"decisions must be >= 1, got {decisions!r}")
    if not 0 <= explore <= 1:
        raise ValueError(f"explore must be in [0, 1], got {explore!r}")
    started = time.perf_counter()
    vec = vector.make(env_id, min(num_envs, decisions), seed=seed, **(options or {}))
    game = vec.game
    rng = np.random.default_rng(seed + 4177)
    observations = np.zeros((decisions, *game.observation_shape), dtype=np.float16)
    masks = np.zeros((decisions, game.num_actions), dtype=bool)
    actions = np.zeros(decisions, dtype=np.int64)
    seats = np.zeros(decisions, dtype=np.int64)
    game_ids = np.zeros(decisions, dtype=np.int64)
    # final rewards by game number; a row's game gets a new number when it restarts
    # (every game holds a decision, and the last batch plays all rows: at most decisions +
    # 2 x num_envs game numbers are ever handed out)
    final = np.zeros((decisions + 2 * vec.num_envs + 1, game.num_players), dtype=np.float32)
    ended_games = np.zeros(final.shape[0], dtype=bool)
    game_of_row = np.arange(vec.num_envs)
    next_game = vec.num_envs
    vec.reset(seed=seed)
    filled = 0
    while filled < decisions:
        take = min(vec.num_envs, decisions - filled)
        rows = np.arange(take)  # the first rows label the last batch; every row plays
        chosen = teacher.act_batch(vec.states, vec.obs, vec.masks)
        played = chosen.copy() if behaviour is None else behaviour.act_batch(vec.states, vec.obs, vec.masks)
        where = slice(filled, filled + take)
        observations[where] = vec.obs[rows]
        masks[where] = vec.masks[rows] > 0
        actions[where] = chosen[rows]
        seats[where] = vec.current_player[rows]
        game_ids[where] = game_of_row[rows]
        filled += take
        if explore > 0:
            wander = rng.random(vec.num_envs) < explore
            played[wander] = uniform_legal(rng, vec.masks[wander])
        _, _, player, rewards, terminated, truncated = vec.step(played)
        for row in np.flatnonzero(terminated | truncated):
            final[game_of_row[row]] = rewards[row]
            ended_games[game_of_row[row]] = True
            game_of_row[row] = next_game
            next_game += 1
    return Demonstrations(
        observations=observations,
        masks=masks,
        actions=actions,
        returns=final[game_ids, seats],
        finished=ended_games[game_ids],
        game=np.unique(game_ids, return_inverse=True)[1].astype(np.int64),
        seconds=time.perf_counter() - started,
        games=int(ended_games.sum()),
    )


def record_round(config, teacher: Agent, round_number: int, behaviour: Agent | None = None) -> Demonstrations:
    """Round ``round_number`` of a training config's warm start (``bc_decisions``,
    ``bc_explore``; each round on seeds of its own): the teacher plays (round 0), or
    ``behaviour`` plays and the teacher labels (the DAgger rounds)."""
    return record_teacher(
        config.env_id,
        teacher,
        config.bc_decisions,
        seed=config.seed + 20_000_000 + 1_000_003 * round_number,
        explore=config.bc_explore,
        options=config.options,
        behaviour=behaviour,
    )


def warm_record(config, data: Demonstrations, rounds: list[dict]) -> dict:
    """The head of a warm start's ``bc.json``: the teacher, all rounds' decisions and games,
    the time spent recording and fitting (each round's ``fit_seconds``)."""
    return {
        "teacher": config.bc_teacher,
        "decisions": len(data),
        "games": data.games,
        "record_seconds": round(data.seconds, 1),
        "fit_seconds": round(sum(r["fit_seconds"] for r in rounds), 1),
    }


def held_out_split(n: int, seed: int, validation: float = 0.05) -> tuple[np.ndarray, np.ndarray]:
    """(held-out, training) indices of ``n`` decisions: a ``validation`` share drawn with ``seed``."""
    order = np.random.default_rng(seed).permutation(n)
    held = order[: int(n * validation)] if n >= 20 else order[:0]
    return held, order[held.size :]


def held_out_games(data: Demonstrations, seed: int, validation: float = 0.05) -> tuple[np.ndarray, np.ndarray]:
    """(held-out, training) indices of ``data``'s decisions, whole games held out: a
    ``validation`` share of the games drawn with ``seed``. A value fitted to a game's outcome
    is judged on games it never saw (decisions of one game share its outcome, so a split by
    decision rewards memorising games)."""
    games = int(data.game.max()) + 1 if len(data) else 0
    chosen = np.random.default_rng(seed).permutation(games)[: int(games * validation)] if games >= 20 else []
    held = np.isin(data.game, chosen)
    return np.flatnonzero(held), np.random.default_rng(seed + 1).permutation(np.flatnonzero(~held))


def clone_policy(
    policy,
    data: Demonstrations,
    epochs: int = 3,
    batch_size: int = 1024,
    learning_rate: float = 1e-3,
    value_coef: float = 0.5,
    validation: float = 0.05,
    seed: int = 0,
    held_out: np.ndarray | None = None,
) -> list[dict]:
    """Fit ``policy`` (a MaskablePPO policy) to ``data`` in place; one record per epoch with the
    training loss and the held-out agreement with the teacher (the share of held-out decisions
    where the policy's most likely action is the teacher's)."""
    import torch

    n = len(data)
    if held_out is None:
        held, train = held_out_split(n, seed, validation)
    else:
        # decisions held out by an earlier fit stay held out (DAgger's later rounds)
        held = np.asarray(held_out, dtype=np.int64)
        train = np.random.default_rng(seed).permutation(np.setdiff1d(np.arange(n), held))
    optimizer = torch.optim.Adam(policy.parameters(), lr=learning_rate)
    device = policy.device
    history = []

    def tensors(index):
        obs = torch.as_tensor(data.observations[index].astype(np.float32), device=device)
        return (
            obs,
            torch.as_tensor(data.actions[index], device=device),
            data.masks[index],
            torch.as_tensor(data.returns[index], device=device),
            torch.as_tensor(data.finished[index], device=device),
        )

    rng = np.random.default_rng(seed + 1)
    policy.set_training_mode(True)
    for epoch in range(epochs):
        rng.shuffle(train)
        total, batches = 0.0, 0
        for start in range(0, train.size, batch_size):
            obs, act, mask, ret, done = tensors(train[start : start + batch_size])
            values, log_prob, _ = policy.evaluate_actions(obs, act, action_masks=mask)
            loss = -log_prob.mean()
            if done.any():
                loss = loss + value_coef * ((values.flatten()[done] - ret[done]) ** 2).mean()
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(policy.parameters(), 0.5)
            optimizer.step()
            total += float(loss.detach())
            batches += 1
        history.append({"epoch": epoch + 1, "loss": total / max(batches, 1), "agreement": agreement(policy, data, held, batch_size)})
    policy.set_training_mode(False)
    return history


def agreement(policy, data: Demonstrations, index: np.ndarray, batch_size: int = 4096) -> float:
    """Share of the decisions ``index`` where the policy's most likely legal action is the teacher's."""
    import torch

    if index.size == 0:
        return float("nan")
    same = 0
    with torch.no_grad():
        for start in range(0, index.size, batch_size):
            part = index[start : start + batch_size]
            obs = torch.as_tensor(data.observations[part].astype(np.float32), device=policy.device)
            distribution = policy.get_distribution(obs, action_masks=data.masks[part])
            best = distribution.distribution.probs.argmax(dim=1).cpu().numpy()
            same += int((best == data.actions[part]).sum())
    return same / index.size
