"""The duel through PettingZoo's Parallel API: the same games as the AEC env."""

import numpy as np
import pytest
from pettingzoo.test import parallel_api_test, parallel_seed_test

from tardis_envs import gallifrey_duel_v1


@pytest.mark.parametrize("mode", ["contest", "dramatic", "climactic"])
def test_parallel_api_and_seed_tests(mode):
    parallel_api_test(gallifrey_duel_v1.parallel_env(mode=mode), num_cycles=300)
    parallel_seed_test(lambda: gallifrey_duel_v1.parallel_env(mode=mode))


def test_parallel_steps_equal_the_aec_env():
    rng = np.random.default_rng(0)
    for seed in range(20):
        par = gallifrey_duel_v1.parallel_env()
        aec = gallifrey_duel_v1.env()
        obs, _ = par.reset(seed=seed)
        aec.reset(seed=seed)
        while par.agents:
            joint = {}
            for agent in par.agents:
                legal = np.flatnonzero(obs[agent]["action_mask"])
                joint[agent] = int(rng.choice(legal))
            for agent in ("first", "second"):
                assert aec.agent_selection == agent
                seen = aec.observe(agent)
                assert np.array_equal(seen["action_mask"], obs[agent]["action_mask"])
                assert np.array_equal(seen["observation"], obs[agent]["observation"])
                aec.step(joint[agent])
            obs, rewards, terms, truncs, _ = par.step(joint)
            assert np.array_equal(par.get_state(), aec.unwrapped.get_state())
            if any(terms.values()) or any(truncs.values()):
                assert rewards == {a: aec.rewards[a] for a in rewards}


def test_parallel_illegal_actions():
    par = gallifrey_duel_v1.parallel_env(illegal_action="raise")
    obs, _ = par.reset(seed=1)
    illegal = int(np.flatnonzero(obs["first"]["action_mask"] == 0)[0])
    legal = int(np.flatnonzero(obs["second"]["action_mask"])[0])
    with pytest.raises(ValueError, match=f"illegal action {illegal} by first"):
        par.step({"first": illegal, "second": legal})
    with pytest.raises(ValueError, match="missing"):
        par.step({"first": legal})
    par = gallifrey_duel_v1.parallel_env()
    obs, _ = par.reset(seed=1)
    with pytest.warns(UserWarning, match="illegal action"):
        _, rewards, terms, _, _ = par.step({"first": illegal, "second": legal})
    assert rewards == {"first": -1.0, "second": 0.0} and all(terms.values()) and par.agents == []
