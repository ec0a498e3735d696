// The dealer's screen: the layout as the round's records build it, the prompt the table waits for
// with one button per answer it allows, and a banner when the table is held (docs/screens.md).
//
// Everything shown comes from the API: the round's records (GET /v1/round, then the event stream),
// in which a face-down card is only its commitment until the record that turns it up, so the page
// never holds a face the table has not turned up. Each tap is one request with its own
// Idempotency-Key, naming the prompt it answers, and the buttons are disabled while it is in flight:
// a double tap answers once. An answer the network lost is sent again with its key (croupier.js),
// and the buttons come back when it could not be sent.

import { el, money, post, request, session, signOut, stream } from "./croupier.js";

const SUITS = { c: "♣", d: "♦", h: "♥", s: "♠" };
const NAMES = {
  hit: "Hit", stand: "Stand", double_down: "Double down", split: "Split", surrender: "Surrender",
  over_23: "Over 23", under_18: "Under 18", play: "Play", check: "Check", fold: "Fold",
  decline: "Decline", insure: "Insure", even_money: "Even money",
};
const COUNTS = { stub_count: "the stub", chip_count: "the progressive chips" };
/** The places of the table itself, above the seats, with their titles. */
const TABLE_PLACES = { dealer: "Dealer", community: "Community cards", "six-card": "Six Card Bonus" };

let table = null; // GET /v1/table
let round = { round: null, ended: null, records: [] }; // GET /v1/round, then the stream's records
let positions = []; // the betting positions, from the betting prompt
let shownPrompt = null; // the id of the prompt the panel shows
let inFlight = false; // an answer sent and not yet answered

const who = await session();
document.getElementById("operator").textContent = `${who.operator} (${who.role})`;
document.getElementById("sign-out").addEventListener("click", signOut);
stream(heard, reload);

// -- what the table says ---------------------------------------------------------------------

async function reload() {
  const current = await request("GET", "/v1/round");
  if (current.status === 200) round = current.body;
  await refresh();
}

let refreshing = null;
function refresh() {
  refreshing ??= new Promise((resolve) => setTimeout(resolve, 50)).then(async () => {
    refreshing = null;
    const { status, body } = await request("GET", "/v1/table");
    if (status === 200) {
      table = body;
      render();
    }
  }).catch(() => {}); // no reply: the stream is down too, and loads again when it is back
  return refreshing;
}

function heard(message) {
  if (message.type === "round_began") {
    round = { round: message.round, ended: null, records: [] };
  } else if (message.type === "round_record") {
    const record = message.record;
    const last = round.records.at(-1);
    if (record.round !== round.round || (last && record.seq <= last.seq)) return;
    round.records.push(record);
    renderLayout();
    return;
  } else if (message.type === "round_ended" && message.round === round.round) {
    round.ended = message.state;
  }
  refresh();
}

// -- the layout ------------------------------------------------------------------------------

/** The round's places, seats and dealer, as its records so far build them. */
function layoutOf(records) {
  const seats = new Map();
  const places = new Map(); // place name -> {cards, rank, total}
  let voided = false;
  const seat = (n) => {
    if (!seats.has(n)) seats.set(n, { wagers: {}, hands: [], decisions: [], net: null });
    return seats.get(n);
  };
  const place = (name) => {
    const key = /^\d+$/.test(name) ? `seat ${name}` : name;
    if (!places.has(key)) {
      places.set(key, { cards: [], rank: "", total: "" });
      const match = /^seat (\d+)/.exec(key);
      if (match) seat(Number(match[1])).hands.push(key);
    }
    return places.get(key);
  };
  for (const r of records) {
    if (r.kind === "wager") seat(r.seat).wagers[r.wager] = r.amount;
    else if (r.kind === "wager_withdrawn") delete seat(r.seat).wagers[r.wager]; // placed again: replaced
    else if (r.kind === "card") {
      place(String(r.place)).cards.push({ face: r.card ?? null, commitment: r.commitment ?? null });
    } else if (r.kind === "hole_revealed" || r.kind === "revealed") {
      for (const { cards } of places.values()) {
        for (const card of cards) if (card.commitment === r.commitment) card.face = r.card;
      }
    } else if (r.kind === "hand") {
      const at = place(String(r.place));
      const sealed = at.cards.filter((card) => card.face === null && card.commitment === null);
      const faces = String(r.cards ?? "").split(" ");
      if (sealed.length === faces.length) sealed.forEach((card, i) => { card.face = faces[i]; });
      at.rank = r.rank ?? r.hand ?? "";
    } else if (r.kind === "decision" && r.seat != null) {
      const choice = r.action ?? r.choice ?? r.decision ?? "";
      seat(r.seat).decisions.push(NAMES[choice] ?? choice);
    } else if (r.kind === "dealer_total") {
      place("dealer").total = r.soft ? `soft ${r.total}` : String(r.total);
    } else if (r.kind === "settlement" && r.seat != null) {
      seat(r.seat).net = (seat(r.seat).net ?? 0) + r.net;
    } else if (r.kind === "state" && r.dest === "voided") {
      voided = true;
    }
  }
  return { seats, places, voided };
}

function cardView(card) {
  if (card.face === null) {
    const back = el("span", "card back");
    back.setAttribute("aria-label", "face down");
    if (card.commitment) back.dataset.commitment = card.commitment;
    return back;
  }
  const [rank, suit] = card.face;
  const colour = "dh".includes(suit) ? "red" : "black";
  const view = el("span", `card ${colour}`, `${rank === "T" ? "10" : rank}${SUITS[suit]}`);
  view.dataset.card = card.face;
  return view;
}

function placeView(name, at, title) {
  const cards = el("div", "cards", "", ...at.cards.map(cardView));
  const view = el("div", "place", "", el("h3", "", title), cards);
  view.dataset.place = name;
  const note = [at.total && `total ${at.total}`, at.rank].filter(Boolean).join(" · ");
  if (note) view.append(el("div", "note", note));
  return view;
}

function renderLayout() {
  const { seats, places, voided } = layoutOf(round.records);
  const layout = document.getElementById("layout");
  const top = el("div", "top");
  if (voided) top.append(el("div", "void", "Round void: every wager returned"));
  for (const [name, title] of Object.entries(TABLE_PLACES)) {
    if (places.has(name)) top.append(placeView(name, places.get(name), title));
  }
  const inTurn = table?.prompt?.seat ?? null;
  const numbers = [...new Set([...positions, ...seats.keys()])].sort((a, b) => a - b);
  const row = el("div", "seats");
  for (const n of numbers) {
    const at = seats.get(n) ?? { wagers: {}, hands: [], decisions: [], net: null };
    const view = el("div", `seat${n === inTurn ? " in-turn" : ""}`, "", el("h2", "", `Seat ${n}`));
    view.id = `seat-${n}`;
    const wagers = Object.entries(at.wagers).filter(([, amount]) => amount > 0);
    if (wagers.length) {
      const items = wagers.map(([kind, amount]) => el("li", "", `${words(kind)} ${money(amount)}`));
      view.append(el("ul", "wagers", "", ...items));
    }
    for (const hand of at.hands) {
      view.append(placeView(hand, places.get(hand), at.hands.length > 1 ? hand : "Cards"));
    }
    if (at.decisions.length) view.append(el("div", "note decision", at.decisions.join(" → ")));
    if (at.net !== null) view.append(netView(at.net));
    row.append(view);
  }
  layout.replaceChildren(top, row);
}

/** What a seat won or lost over the round. */
function netView(net) {
  if (net === 0) return el("div", "net push", "even");
  return el("div", `net ${net > 0 ? "won" : "lost"}`, `${net > 0 ? "+" : "−"}${money(Math.abs(net))}`);
}

// -- the table's state: header, banner, progressive --------------------------------------------

function render() {
  const number = round.round ?? table.rounds;
  const ended = round.ended ? ` (${round.ended})` : "";
  document.getElementById("table-name").textContent = `${table.name} · ${table.game.replaceAll("-", " ")}`;
  document.getElementById("round").textContent = number ? `Round ${number}${ended}` : "";
  document.getElementById("dealer").textContent = table.dealer ? `Dealer ${table.dealer}` : "";
  document.getElementById("shoe").textContent = table.shoe ? `Shoe: ${table.shoe.remaining} cards` : "";
  renderBanner();
  renderProgressive();
  if (table.prompt?.kind === "wagers" && table.prompt.positions) positions = table.prompt.positions;
  renderLayout();
  renderPrompt(table.prompt);
}

function renderBanner() {
  const reasons = table.faults.map(
    (fault) => `${fault.code}: ${fault.detail} (${fault.clause}) — call a supervisor to clear it`,
  );
  const held = table.held_round;
  if (held) {
    const why = `${held.irregularity} (${held.clause})`;
    reasons.push(`Round ${held.round} is held: ${why} — call a supervisor to rule continue or void`);
  }
  for (const level of table.progressive?.jackpot_locked ?? []) {
    const reset = "call a supervisor for its keyed reset before betting opens";
    reasons.push(`Progressive level ${level} was hit — ${reset}`);
  }
  if (!table.open) reasons.push("The table is closed — a supervisor opens it");
  const banner = document.getElementById("banner");
  banner.replaceChildren(...reasons.map((reason) => el("div", "", reason)));
  banner.hidden = reasons.length === 0;
}

function renderProgressive() {
  const bar = document.getElementById("progressive");
  const progressive = table.progressive;
  bar.hidden = !progressive;
  if (!progressive) return;
  const meters = progressive.meters.map((meter) => {
    const text = `Level ${meter.level}: ${money(meter.value_cents)}${meter.frozen ? " (hit)" : ""}`;
    return el("span", `meter${meter.frozen ? " frozen" : ""}`, text);
  });
  const locked = progressive.locked;
  const lock = el("span", `lock${locked ? " locked" : ""}`, locked ? "Wagers locked" : "Taking wagers");
  bar.replaceChildren(el("strong", "", "Progressive"), ...meters, lock);
}

// -- the prompt -----------------------------------------------------------------------------

function renderPrompt(prompt) {
  const panel = document.getElementById("prompt");
  if (prompt && prompt.id === shownPrompt) return;
  shownPrompt = prompt?.id ?? null;
  inFlight = false;
  panel.dataset.kind = prompt?.kind ?? "";
  panel.dataset.prompt = prompt?.id ?? "";
  // Every panel, a waiting one too, has the message line: an answer's reply may come after its
  // prompt is gone (the round moved on meanwhile), and what it says is still the dealer's to read.
  const message = el("p", "message", "");
  message.id = "prompt-message";
  if (!prompt) {
    const waiting = table.round_in_progress ? "Dealing…" : "Waiting for the table";
    panel.replaceChildren(el("h2", "waiting", waiting), message);
    return;
  }
  const builders = {
    wagers: betting,
    decision,
    election: decision,
    insurance,
    stub_count: count,
    chip_count: count,
    misdeal_finding: misdeal,
    place_counts: placeCounts,
    hand_report: handReport,
  };
  panel.replaceChildren(...(builders[prompt.kind] ?? unknown)(prompt), message);
}

function say(text, error = false) {
  const message = document.getElementById("prompt-message");
  message.textContent = text;
  message.classList.toggle("error", error);
}

/** Send one answer to ``route`` for ``prompt``; every button of the panel off until it is answered,
 * or until the network has failed it (post() sends it again a few times first, with its key). */
async function answer(route, prompt, body) {
  if (inFlight) return null;
  inFlight = true;
  const panel = document.getElementById("prompt");
  for (const button of panel.querySelectorAll("button")) button.disabled = true;
  let sent;
  try {
    sent = await post(route, { prompt: prompt.id, ...body });
  } catch (error) {
    say(`Not sent: the service did not answer (${error.message}). Tap again once the connection is back`, true);
    return null;
  } finally {
    inFlight = false;
    if (shownPrompt === prompt.id) {
      for (const button of panel.querySelectorAll("button")) button.disabled = false;
    }
    refresh();
  }
  const { status, body: reply } = sent;
  if (status === 200) say("");
  else say(`${reply?.error ?? `refused (${status})`}${reply?.clause ? ` [${reply.clause}]` : ""}`, true);
  return status === 200 ? reply : null;
}

function big(label, onTap, answerName = "") {
  const button = el("button", "big answer", label);
  button.type = "button";
  if (answerName) button.dataset.answer = answerName;
  button.addEventListener("click", onTap);
  return button;
}

/** A number field, its attributes as given. */
function field(attributes) {
  const input = el("input");
  Object.assign(input, { type: "number", ...attributes });
  return input;
}

/** Dollars keyed as cents. */
function cents(input) {
  return Math.round(Number(input.value) * 100);
}

function words(name) {
  return name.replaceAll("_", " ");
}

function title(prompt, text) {
  return el("h2", "", prompt.seat != null ? `Seat ${prompt.seat}: ${text}` : text);
}

function betting(prompt) {
  let seat = null;
  const picks = el("div", "seat-picks");
  for (const n of prompt.positions ?? []) {
    const pick = el("button", "pick", `Seat ${n}`);
    pick.type = "button";
    pick.dataset.seat = n;
    pick.addEventListener("click", () => {
      seat = n;
      for (const other of picks.children) other.classList.toggle("selected", other === pick);
    });
    picks.append(pick);
  }
  const fields = prompt.wager_fields.map((name) => {
    const input = field({ inputMode: "decimal", min: "0", step: "0.01", id: `wager-${name}` });
    const required = prompt.required.includes(name) ? " required" : "";
    return { name, input, view: el("label", `amount${required}`, `${words(name)} $`, input) };
  });
  const place = big("Place wager", async () => {
    if (seat === null) return say("Tap a seat first", true);
    const body = { seat };
    for (const { name, input } of fields) {
      if (input.value !== "") body[name] = cents(input);
    }
    if (await answer("/v1/wagers", prompt, body)) {
      say(`Seat ${seat}: wager taken`);
      for (const { input } of fields) input.value = "";
    }
  }, "wager");
  place.id = "place-wager";
  const done = big("No more bets", () => answer("/v1/rounds/no-more-bets", prompt, {}), "no_more_bets");
  done.id = "no-more-bets";
  return [
    el("h2", "", "Place your bets"),
    picks,
    el("div", "amounts", "", ...fields.map((f) => f.view)),
    el("div", "answers", "", place, done),
  ];
}

function decision(prompt) {
  const lines = [];
  if (prompt.hand) lines.push(`${prompt.hand}: ${(prompt.cards ?? []).join(" ")}`);
  if (prompt.dealer_up) lines.push(`dealer shows ${prompt.dealer_up}`);
  if (prompt.first_card) lines.push(`first card ${prompt.first_card}`);
  if (prompt.street) lines.push([prompt.street, ...(prompt.community ?? [])].join(" "));
  // The field the game's decision body names its choice in (docs/api.md, the bodies game by game).
  const named = prompt.kind === "election" || prompt.street ? "choice" : "action";
  const decide = (body) => () => answer("/v1/decisions", prompt, { seat: prompt.seat, ...body });
  const buttons = [];
  for (const choice of prompt.legal ?? []) {
    if (choice === "play" && prompt.multiples) {
      for (const multiple of prompt.multiples) {
        buttons.push(big(`Play ${multiple}×`, decide({ [named]: "play", multiple }), `play-${multiple}`));
      }
    } else {
      buttons.push(big(NAMES[choice] ?? choice, decide({ [named]: choice }), choice));
    }
  }
  return [
    title(prompt, prompt.kind === "election" ? "elect" : "decide"),
    el("p", "context", lines.join(" · ")),
    el("div", "answers", "", ...buttons),
  ];
}

function insurance(prompt) {
  const amount = field({ inputMode: "decimal", min: "0.01", step: "0.01", id: "insurance-amount" });
  amount.value = (prompt.insurance_limit / 100).toFixed(2);
  const insure = (choice) => () => {
    const body = { seat: prompt.seat, choice };
    if (choice === "insure") body.amount = cents(amount);
    return answer("/v1/insurance", prompt, body);
  };
  const buttons = prompt.legal.map((choice) => big(NAMES[choice], insure(choice), choice));
  return [
    title(prompt, `insurance? dealer shows ${prompt.dealer_up}`),
    el("label", "amount", `insurance up to ${money(prompt.insurance_limit)} $`, amount),
    el("div", "answers", "", ...buttons),
  ];
}

/** A number pad writing into ``input``: digits, delete and clear, as large as the answer buttons. */
function numberPad(input) {
  const pad = el("div", "pad");
  for (const key of ["1", "2", "3", "4", "5", "6", "7", "8", "9", "Clear", "0", "⌫"]) {
    const button = el("button", "key", key);
    button.type = "button";
    button.dataset.key = key;
    button.addEventListener("click", () => {
      if (key === "Clear") input.value = "";
      else if (key === "⌫") input.value = input.value.slice(0, -1);
      else input.value += key;
    });
    pad.append(button);
  }
  return pad;
}

function count(prompt) {
  const input = el("input");
  Object.assign(input, { type: "text", inputMode: "numeric", pattern: "[0-9]*", id: "count" });
  const enter = big("Enter count", () => {
    if (!/^\d+$/.test(input.value)) return say("Key the count first", true);
    return answer(`/v1/${prompt.kind.replace("_", "-")}`, prompt, { count: Number(input.value) });
  }, "count");
  return [
    el("h2", "", `Count ${COUNTS[prompt.kind]} (${prompt.clause})`),
    input,
    numberPad(input),
    el("div", "answers", "", enter),
  ];
}

function misdeal(prompt) {
  const find = (misdealt) => () => answer("/v1/misdeal-finding", prompt, { misdealt });
  const buttons = [big("Misdealt", find(true), "misdealt"), big("Not misdealt", find(false), "not-misdealt")];
  return [el("h2", "", `Were the cards misdealt? (${prompt.clause})`), el("div", "answers", "", ...buttons)];
}

function placeCounts(prompt) {
  const inputs = prompt.places.map(() => field({ inputMode: "numeric", min: "0", step: "1" }));
  const enter = big("Enter counts", () => {
    const counts = Object.fromEntries(prompt.places.map((name, i) => [name, Number(inputs[i].value)]));
    return answer("/v1/place-counts", prompt, { counts });
  }, "counts");
  const labels = prompt.places.map((name, i) => el("label", "amount", name, inputs[i]));
  return [el("h2", "", "Count the cards at each place"), ...labels, el("div", "answers", "", enter)];
}

function handReport(prompt) {
  const input = el("input");
  Object.assign(input, { type: "text", placeholder: "Kc Kd 9h 6s 2c" });
  const key = (cards) => () => answer("/v1/hand-report", prompt, { cards: cards() });
  const report = big("Report", key(() => input.value.trim().split(/\s+/)), "report");
  const cannot = big("Cannot report", key(() => null), "cannot-report");
  const heading = el("h2", "", `Key the cards at ${prompt.place} (${prompt.clause})`);
  return [heading, input, el("div", "answers", "", report, cannot)];
}

function unknown(prompt) {
  return [el("h2", "", `The table waits for ${prompt.kind}: this screen cannot key it`)];
}
