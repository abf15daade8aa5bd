// A seat's page: shows what the server sends for this seat, and sends back the action chosen.
// The action is chosen as `ruleforge play` does at a terminal, one piece at a time (the action,
// then each of its parameters), by clicking on the picture or on a button; every legal action is
// also offered by its words. Texts are set as text (never as HTML); the picture's HTML is made
// and escaped by the server.
"use strict";

const token = decodeURIComponent(location.pathname.split("/").pop());
const api = "/api/seat/" + encodeURIComponent(token);
const $ = (id) => document.getElementById(id);
const MOST_LISTED = 60; // actions listed by their words at once; a filter narrows longer lists

let current = null; // the last state the server sent
let chosen = []; // pieces fixed so far: [{pos, value}] (pos 0 is the action's name)
let sending = false;

function el(tag, text, cls) {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = String(text);
  if (cls) node.className = cls;
  return node;
}

// --- talking to the server -------------------------------------------------------------------

async function poll() {
  let version = -1;
  for (;;) {
    try {
      const url = version < 0 ? api : api + "?after=" + version;
      const response = await fetch(url, { cache: "no-store" });
      if (response.status === 404) { showGone(); return; }
      if (!response.ok) throw new Error("status " + response.status);
      const state = await response.json();
      $("connection").textContent = "";
      if (newer(state)) show(state); // a long poll may answer after an action's answer: never go back
      version = state.version;
    } catch (err) {
      $("connection").textContent = "reconnecting…";
      version = -1; // once the server answers again, ask for the state at once, not for news
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  }
}

function showGone() {
  $("picture").replaceChildren(el("p", "No seat has this link.", "rf-error"));
}

async function send(label) {
  if (sending) return;
  sending = true;
  $("decide").classList.add("rf-busy");
  try {
    const response = await fetch(api + "/act", {
      method: "POST", headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ action: label }),
    });
    const answer = await response.json();
    if (!response.ok) {
      showProblem(answer.error || "the server refused the action");
    } else if (newer(answer)) {
      show(answer);
    }
  } catch (err) {
    showProblem("the action could not be sent: " + err);
  } finally {
    sending = false;
    $("decide").classList.remove("rf-busy");
  }
}

function showProblem(message) {
  const box = $("decide");
  const old = box.querySelector(".rf-error");
  if (old) old.remove();
  box.prepend(el("p", message, "rf-error"));
}

// --- the page --------------------------------------------------------------------------------

// a state after the one shown: a later version of the same run of the server, or any state of a
// server started again (its versions count afresh)
function newer(state) {
  return !current || state.run !== current.run || state.version > current.version;
}

function show(state) {
  const fresh = newer(state);
  current = state;
  if (fresh) chosen = [];
  document.title = state.game + " (" + state.seat + ")";
  $("title").textContent = state.game + ": you are " + state.seat;
  $("turn").textContent = state.failure ? state.failure
    : state.over ? "The game is over."
    : state.your_turn ? "Your turn." : state.to_act + " to act.";
  $("turn").className = state.your_turn ? "rf-your-turn" : "";
  $("picture").innerHTML = state.picture; // made and escaped by the server from this seat's view
  showLog(state);
  showScores(state);
  showDecision();
}

function showLog(state) {
  const list = $("log");
  list.replaceChildren(...state.log.map((line) => el("li", line)));
  list.start = state.log_count - state.log.length + 1;
  list.scrollTop = list.scrollHeight;
}

function showScores(state) {
  const box = $("scores");
  box.replaceChildren();
  if (!state.scores) return;
  box.append(el("h2", "Scores"));
  const items = [];
  for (const row of state.scores) for (const [item] of row.breakdown) if (!items.includes(item)) items.push(item);
  const table = el("table", null, "rf-breakdown");
  const head = el("tr");
  head.append(el("th", ""), ...state.scores.map((row) => el("th", row.seat + (row.winner ? " ★" : ""))));
  table.append(head);
  for (const item of items) {
    const tr = el("tr");
    tr.append(el("td", item), ...state.scores.map((row) => {
      const found = row.breakdown.find(([name]) => name === item);
      return el("td", found ? found[1] : "");
    }));
    table.append(tr);
  }
  const total = el("tr", null, "rf-total");
  total.append(el("td", "total"), ...state.scores.map((row) => el("td", row.total)));
  table.append(total);
  const winners = state.scores.filter((row) => row.winner).map((row) => row.seat);
  box.append(table, el("p", (winners.length > 1 ? "Shared win: " : "Winner: ") + winners.join(", ")));
}

// --- choosing, piece by piece ----------------------------------------------------------------

function pieces(action) {
  return [action.name, ...action.params.map((p) => p.value)];
}

function candidates() {
  return current.actions.filter((action) => {
    const values = pieces(action);
    return chosen.every(({ pos, value }) => values[pos] === value);
  });
}

// the first piece still open on which the candidates differ (pieces all share are taken)
function openPiece(cands) {
  const fixed = new Set(chosen.map((c) => c.pos));
  const width = Math.max(...cands.map((a) => a.params.length + 1));
  for (let pos = 0; pos < width; pos++) {
    if (fixed.has(pos)) continue;
    const values = new Set(cands.map((a) => pieces(a)[pos]));
    if (values.size > 1) return pos;
  }
  return -1;
}

function showDecision() {
  const box = $("decide");
  box.replaceChildren();
  clearTargets();
  if (!current.your_turn) return;
  const cands = candidates();
  if (current.prompt) box.append(el("h2", current.prompt));
  const pos = openPiece(cands);
  if (pos < 0 && chosen.length > 0) { send(cands[0].label); return; } // the pieces chosen say it all
  if (pos < 0) { // one action (or alike ones): asked all the same, as at a terminal
    const only = el("button", cands[0].label, "rf-value");
    only.type = "button";
    only.addEventListener("click", () => send(cands[0].label));
    box.append(el("p", "Your only choice:", "rf-question"), only);
    markTargets(cands);
    return;
  }
  const question = pos === 0 ? "Choose the action:" : cands[0].params[pos - 1].question;
  const done = chosen.map((c) => c.value).join(" ");
  box.append(el("p", done ? done + ": " + question : question, "rf-question"));
  const counts = new Map();
  for (const action of cands) {
    const value = pieces(action)[pos];
    counts.set(value, (counts.get(value) || 0) + 1);
  }
  const buttons = el("div", null, "rf-values");
  const shown = shortNames([...counts.keys()]);
  for (const [value, count] of counts) {
    const example = cands.find((a) => pieces(a)[pos] === value);
    const name = shown.get(value);
    const text = pos === 0 ? (count === 1 ? example.label : value + " (" + count + "): e.g. " + example.label)
      : count > 1 ? name + " (" + count + ")" : name;
    const button = el("button", text, "rf-value");
    button.type = "button";
    button.dataset.value = value;
    button.addEventListener("click", () => take(pos, value));
    buttons.append(button);
  }
  box.append(buttons);
  if (chosen.length) {
    const back = el("button", "Back", "rf-back");
    back.type = "button";
    back.addEventListener("click", () => { chosen.pop(); showDecision(); });
    box.append(back);
  }
  markTargets(cands);
  box.append(wordsList(cands));
}

// the cells of one grid by their place alone (`3,4`), as `ruleforge play` lists them
function shortNames(values) {
  const cells = values.map((v) => /^(.*)\[(\d+,\d+)\]$/.exec(v));
  const oneGrid = cells.every(Boolean) && new Set(cells.map((m) => m[1])).size === 1;
  return new Map(values.map((v, k) => [v, oneGrid ? cells[k][2] : v]));
}

function take(pos, value) {
  chosen.push({ pos, value });
  showDecision();
}

function wordsList(cands) {
  const details = el("details", null, "rf-words");
  details.append(el("summary", "or choose by its words (" + cands.length + ")"));
  const filter = el("input");
  filter.type = "search";
  filter.placeholder = "filter";
  filter.className = "rf-filter";
  const list = el("ul", null, "rf-labels");
  const fill = () => {
    const words = filter.value.toLowerCase().split(/\s+/).filter(Boolean);
    const shown = cands.filter((a) => words.every((w) => a.label.toLowerCase().includes(w)));
    list.replaceChildren(...shown.slice(0, MOST_LISTED).map((action) => {
      const item = el("li");
      const button = el("button", action.label, "rf-label");
      button.type = "button";
      button.addEventListener("click", () => send(action.label));
      item.append(button);
      return item;
    }));
    if (shown.length > MOST_LISTED) list.append(el("li", "… " + (shown.length - MOST_LISTED) + " more: filter"));
  };
  filter.addEventListener("input", fill);
  fill();
  details.append(filter, list);
  return details;
}

// --- clicking on the picture -------------------------------------------------------------------

function clearTargets() {
  for (const node of document.querySelectorAll(".rf-target")) node.classList.remove("rf-target");
}

function sameTarget(target, zone, index) {
  if (!target || target.zone !== zone) return false;
  return index === undefined ? target.index === undefined : target.index === index;
}

// every element of the picture that an open piece of a candidate points at
function markTargets(cands) {
  const fixed = new Set(chosen.map((c) => c.pos));
  const wanted = [];
  for (const action of cands) {
    action.params.forEach((param, k) => { if (!fixed.has(k + 1) && param.target) wanted.push(param.target); });
  }
  for (const node of $("picture").querySelectorAll("[data-zone]")) {
    const zone = node.dataset.zone;
    const index = node.dataset.index === undefined ? undefined : Number(node.dataset.index);
    if (wanted.some((t) => sameTarget(t, zone, index))) node.classList.add("rf-target");
  }
}

// a click: the innermost element that is a target, and the open piece it stands for
function clicked(event) {
  if (!current || !current.your_turn || sending) return;
  const fixed = new Set(chosen.map((c) => c.pos));
  const cands = candidates();
  for (let node = event.target; node && node !== $("picture"); node = node.parentElement) {
    if (!node.dataset || node.dataset.zone === undefined) continue;
    const zone = node.dataset.zone;
    const index = node.dataset.index === undefined ? undefined : Number(node.dataset.index);
    for (const action of cands) {
      const k = action.params.findIndex((p, i) => !fixed.has(i + 1) && sameTarget(p.target, zone, index));
      if (k >= 0) { take(k + 1, action.params[k].value); return; }
    }
  }
}

document.addEventListener("DOMContentLoaded", () => {
  $("picture").addEventListener("click", clicked);
  poll();
});
