// The page of `tardis-envs serve`: one front end for every game through the JSON API.
"use strict";

const $ = (id) => document.getElementById(id);
let games = [];
let current = null;   // {kind: "table" | "replay", id, view}
let viewer = null;    // the human seat whose view is shown (tables)
let timer = null;
let paused = false;
let inFlight = 0;     // requests not yet answered

async function api(method, path, body, raw) {
  const options = { method, headers: {} };
  if (raw !== undefined) {
    options.body = raw;
    options.headers["content-type"] = "application/octet-stream";
  } else if (body !== undefined) {
    options.body = JSON.stringify(body);
    options.headers["content-type"] = "application/json";
  }
  inFlight += 1;
  let response;
  try { response = await fetch(path, options); } finally { inFlight -= 1; }
  const data = await response.json().catch(() => ({ error: `HTTP ${response.status}` }));
  if (!response.ok) throw new Error(data.error || `HTTP ${response.status}`);
  return data;
}

function showError(error) { $("error").textContent = error ? String(error.message || error) : ""; }

function stopTimer() { if (timer) { clearTimeout(timer); timer = null; } }

// a table's moves are sent once: each request asks for those after the ones held (the last one
// again: the duel's hidden choice shows once both have chosen)
function held() { return `moves_from=${Math.max(0, current.moves.length - 1)}`; }

function absorb(view) {
  current.moves = current.moves.slice(0, view.moves_from).concat(view.moves);
  view.moves = current.moves;
  current.view = view;
  return view;
}

// --- the new-game form -------------------------------------------------------------
function chosenGame() { return games.find((g) => g.env_id === $("game").value); }

function seatNames(game, players) {
  if (players === game.default_players) return game.seats;
  return Array.from({ length: players }, (_, k) => `seat ${k}`);
}

function fillSeats() {
  const game = chosenGame();
  const players = Number($("players").value || game.default_players);
  const seats = $("seats");
  seats.innerHTML = "";
  seatNames(game, players).forEach((name, k) => {
    const label = document.createElement("label");
    label.textContent = `${name} `;
    const select = document.createElement("select");
    select.className = "seat";
    for (const choice of ["human", ...game.agents]) {
      const option = document.createElement("option");
      option.value = option.textContent = choice;
      select.appendChild(option);
    }
    select.value = k === 0 ? "human" : "heuristic";
    label.appendChild(select);
    seats.appendChild(label);
  });
}

function fillGame() {
  const game = chosenGame();
  const players = $("players");
  players.innerHTML = "";
  for (const n of game.num_players) {
    const option = document.createElement("option");
    option.value = option.textContent = n;
    players.appendChild(option);
  }
  players.value = game.default_players;
  $("players-label").hidden = game.num_players.length < 2;
  $("options-doc").textContent = Object.entries(game.options).map(([k, o]) => `${k} (default ${JSON.stringify(o.default)}): ${o.doc}`).join("\n");
  fillSeats();
}

async function startGame() {
  showError();
  stopTimer();
  const game = chosenGame();
  let options;
  try { options = JSON.parse($("options").value || "{}"); } catch (e) { showError(`rule options: ${e.message}`); return; }
  if (game.num_players.length > 1) options.num_players = Number($("players").value);
  const body = { env_id: game.env_id, seats: [...document.querySelectorAll("#seats .seat")].map((s) => s.value), options };
  if ($("seed").value !== "") body.seed = Number($("seed").value);
  try {
    if (current) api("DELETE", `/api/${current.kind === "table" ? "tables" : "replays"}/${current.id}`).catch(() => {});
    const view = await api("POST", "/api/tables", body);
    current = { kind: "table", id: view.id, view, moves: view.moves };
    viewer = view.viewer;
    paused = false;
    $("pause").textContent = "Pause";
    show(view);
    schedule();
  } catch (e) { showError(e); }
}

// --- a game in play ----------------------------------------------------------------
function humanSeats(view) { return view.seats.filter((s) => s.player === "human").map((s) => s.seat); }

function schedule() {
  stopTimer();
  const view = current && current.kind === "table" ? current.view : null;
  if (!view || view.status !== "running" || view.human_turn || paused) return;
  timer = setTimeout(advance, Number($("speed").value));
}

async function advance() {
  timer = null;
  try {
    const view = absorb(await api("POST", `/api/tables/${current.id}/advance?${held()}${viewer === null ? "" : `&viewer=${viewer}`}`));
    await turnTo(view);
  } catch (e) { showError(e); }
}

async function turnTo(view) {
  // the human to move sees its own view; with hidden hands and two humans, the screen is covered first
  if (view.human_turn && view.turn !== viewer) {
    const handover = viewer !== null && humanSeats(view).length > 1 && chosenHidden(view);
    viewer = view.turn;
    if (handover) { cover(`Pass to ${view.turn_name}`); return; }
    view = absorb(await api("GET", `/api/tables/${current.id}?viewer=${viewer}&${held()}`));
  }
  show(view);
  schedule();
}

function chosenHidden(view) { const g = games.find((x) => x.env_id === view.env_id); return g && g.hidden_information; }

function cover(text) {
  $("cover-text").textContent = text;
  $("cover").hidden = false;
  $("actions").innerHTML = "";
  $("private").textContent = "";
}

async function reveal() {
  $("cover").hidden = true;
  try {
    show(absorb(await api("GET", `/api/tables/${current.id}?viewer=${viewer}&${held()}`)));
  } catch (e) { showError(e); }
}

async function play(action) {
  showError();
  try {
    const view = absorb(await api("POST", `/api/tables/${current.id}/play?${held()}`, { seat: current.view.turn, action }));
    await turnTo(view);
  } catch (e) { showError(e); }
}

// --- replays -------------------------------------------------------------------------
async function listReplays() {
  const list = $("replay-list");
  list.innerHTML = "";
  for (const name of await api("GET", "/api/replays")) {
    const item = document.createElement("li");
    const link = document.createElement("a");
    link.textContent = name;
    link.onclick = () => openReplay(api("POST", "/api/replays/open", { name }));
    item.appendChild(link);
    list.appendChild(item);
  }
}

async function openReplay(request) {
  showError();
  stopTimer();
  try {
    const view = await request;
    if (current) api("DELETE", `/api/${current.kind === "table" ? "tables" : "replays"}/${current.id}`).catch(() => {});
    current = { kind: "replay", id: view.id, view, moves: view.moves };
    show(view);
  } catch (e) { showError(e); }
}

async function frame(k) {
  if (!current || current.kind !== "replay") return;
  k = Math.max(0, Math.min(current.view.frames, k));
  try {
    const view = await api("GET", `/api/replays/${current.id}/frames/${k}?moves_from=${current.moves.length}`);
    view.moves = current.moves;  // a replay's moves never change: sent once
    current.view = view;
    show(view);
  } catch (e) { showError(e); }
}

function autoplay() {
  if (timer) { stopTimer(); $("autoplay").textContent = "Play"; return; }
  $("autoplay").textContent = "Stop";
  const tick = async () => {
    if (!current || current.kind !== "replay" || current.view.frame >= current.view.frames) { stopTimer(); $("autoplay").textContent = "Play"; return; }
    await frame(current.view.frame + 1);
    timer = setTimeout(tick, Number($("speed").value));
  };
  tick();
}

// --- drawing a view ------------------------------------------------------------------
function show(view) {
  $("board").hidden = false;
  const table = view.kind === "table";
  $("watch-controls").hidden = !table;
  $("replay-controls").hidden = table;
  $("title").textContent = `${view.env_id}, seed ${view.seed}: ` + view.seats.map((s) => `${s.name} ${s.player}`).join(", ");
  $("picture").src = view.picture;
  $("text").textContent = view.board;
  $("describe").textContent = view.describe ? JSON.stringify(view.describe, null, 1) : "(hidden while the game runs: it shows every hand)";
  $("private").textContent = view.private || "";
  let status;
  if (view.rewards) {
    status = `Game over (${view.status}): ` + view.seats.map((s, k) => `${s.name} ${view.rewards[k] > 0 ? "+" : ""}${view.rewards[k]}`).join(", ");
  } else if (table) {
    status = view.human_turn ? `${view.turn_name} to play (you)` : `${view.turn_name} (${view.seats[view.turn].player}) is thinking`;
  } else {
    status = `position ${view.frame} of ${view.frames}`;
  }
  $("status").textContent = status;
  const moves = $("moves");
  moves.innerHTML = "";
  view.moves.forEach((move, k) => {
    const item = document.createElement("li");
    item.textContent = `${move.seat}: ${move.text}`;
    if (move.chance) { const c = document.createElement("span"); c.className = "chance"; c.textContent = move.chance; item.appendChild(c); }
    if (!table) { item.style.cursor = "pointer"; item.onclick = () => frame(k + 1); if (k + 1 === view.frame) item.className = "current"; }
    moves.appendChild(item);
  });
  if (table) moves.scrollTop = moves.scrollHeight;
  const actions = $("actions");
  actions.innerHTML = "";
  for (const legal of view.legal || []) {
    const button = document.createElement("button");
    button.className = "action";
    button.textContent = legal.text;
    button.dataset.action = legal.action;
    button.onclick = () => play(legal.action);
    actions.appendChild(button);
  }
  $("typed").hidden = !(view.legal && view.legal.length);
  if (table) {
    $("download").hidden = false;
    $("download").href = `/api/tables/${view.id}/replay`;
  } else {
    $("download").hidden = true;
    $("frame").max = view.frames;
    $("frame").value = view.frame;
  }
}

// --- wiring ----------------------------------------------------------------------------
async function init() {
  games = await api("GET", "/api/games");
  for (const game of games) {
    const option = document.createElement("option");
    option.value = game.env_id;
    option.textContent = `${game.name} (${game.env_id})`;
    $("game").appendChild(option);
  }
  fillGame();
  $("game").onchange = fillGame;
  $("players").onchange = fillSeats;
  $("start").onclick = startGame;
  $("reveal").onclick = reveal;
  $("pause").onclick = () => { paused = !paused; $("pause").textContent = paused ? "Resume" : "Pause"; schedule(); };
  const speed = () => { $("speed-text").textContent = `${$("speed").value} ms a move`; };
  $("speed").oninput = speed;
  speed();
  $("first").onclick = () => frame(0);
  $("back").onclick = () => frame(current.view.frame - 1);
  $("forward").onclick = () => frame(current.view.frame + 1);
  $("last").onclick = () => frame(current.view.frames);
  $("frame").onchange = () => frame(Number($("frame").value));
  $("autoplay").onclick = autoplay;
  $("typed").onsubmit = (event) => { event.preventDefault(); play($("typed-action").value); $("typed-action").value = ""; };
  $("upload").onchange = async () => {
    const file = $("upload").files[0];
    if (file) openReplay(api("POST", `/api/replays?name=${encodeURIComponent(file.name)}`, undefined, await file.arrayBuffer()));
  };
  await listReplays();
}

// a watched game never stalls: should the chain of agent moves ever break (a request lost, a
// tab put to sleep), it is picked up again
setInterval(() => {
  const view = current && current.kind === "table" ? current.view : null;
  if (view && view.status === "running" && !view.human_turn && !paused && !timer && inFlight === 0) schedule();
}, 2000);

init().catch(showError);
