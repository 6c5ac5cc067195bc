import numpy as np, tardis_envs
from agents import make_agent
from tardis_envs import vector
from tardis_envs.games.keys import rules
n=2; N=400
vec = vector.make("keys_to_the_tardis_v0", N, seed=0, num_players=n)
g = vec.game
agents = [make_agent("heuristic", g)] + [make_agent("random", g, seed=k) for k in range(1, n)]
seats = (np.arange(N)[:, None] + np.arange(n)[None, :]) % n
obs, masks, players = vec.reset()
running = np.ones(N, bool); actions = np.zeros(N, np.int64)
hist = {i: [] for i in range(N)}
snap = {}
for it in range(5000):
    movers = seats[np.arange(N), players]
    for k, a in enumerate(agents):
        rows = np.flatnonzero(movers == k)
        if rows.size: actions[rows] = a.act_batch(vec.states[rows], obs[rows], masks[rows])
    for i in np.flatnonzero(running & (movers == 0)):
        hist[i].append(g.action_to_string(vec.states[i], int(actions[i])))
    pre = vec.states.copy()
    obs, masks, players, rew, term, trunc = vec.step(actions)
    for i in np.flatnonzero(trunc & running):
        snap[i] = pre[i]
    running &= ~(term | trunc)
    if not running.any(): break
i = list(snap)[0]
print(list(snap))
print(g.render_ansi(snap[i]))
print(g.describe(snap[i])["players"])
print(hist[i][-40:])
