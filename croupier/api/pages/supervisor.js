// The supervisor's console: open and close the table (the opening's progress as it goes), latched
// faults cleared, held rounds ruled on, dealer changes, each device's link and last error, the
// progressive's levels and keyed reset, and the audit trail's head. It shows what the API says and
// asks the API for every action (docs/screens.md): the table's rules decide, and a refusal is shown
// with its reason.
//
// Each action is one POST with its own Idempotency-Key (croupier.js), and the action's buttons stay
// disabled until it is answered, even when the list they are in is drawn again: a double click
// takes effect once.
import { el, money, post, request, session, signOut, stream } from "./croupier.js";

const who = await session();
document.getElementById("operator").textContent = `${who.operator} (${who.role})`;
document.getElementById("sign-out").addEventListener("click", signOut);

/** Actions sent and not yet answered, by id ("clear:DOOR_OPEN", "resolve", ...). */
const pending = new Set();
/** The last answer to each action, shown beside it: {text, error}. */
const notes = new Map();
/** The opening's steps as the stream tells them: {steps, state, by} (state: under way, held, open,
 * refused; by: who started it, when this page did or joined it). The table's state has the same
 * from GET /v1/table, and is shown when there. */
let opening = { steps: [], state: "", by: "" };
let state = null;
/** The table's last action asked (open or close), whose answer the table's part shows. */
let tableAction = "open";

const $ = (id) => document.getElementById(id);

/** The reason a refusal gives, with the clause it cites. */
function refusal(reply, status) {
  const why = reply?.error ?? `refused (${status})`;
  return reply?.clause ? `${why} — ${reply.clause}` : why;
}

/** One action: its POST once, its buttons disabled until answered, its answer noted (an answer
 * taken: 200, or 202 for an action that runs on, the day's opening). ``done`` gives the note's text,
 * or a note the stream already gave, which stands. */
async function act(id, path, body, done) {
  if (pending.has(id)) return;
  pending.add(id);
  notes.delete(id);
  draw();
  try {
    const { status, body: reply } = await post(path, body);
    const taken = status === 200 || status === 202;
    const said = taken ? done(reply, status) : refusal(reply, status);
    notes.set(id, typeof said === "string" ? { text: said, error: !taken } : said);
  } catch (error) {
    notes.set(id, { text: `not sent: ${error}`, error: true });
  } finally {
    pending.delete(id);
    refresh();
  }
}

/** A button for action ``id``, disabled while it is pending. */
function button(id, label, onClick, className = "") {
  const node = el("button", className, label);
  node.type = "button";
  node.disabled = pending.has(id);
  node.addEventListener("click", () => {
    node.disabled = true;
    onClick();
  });
  return node;
}

function note(id) {
  const shown = notes.get(id);
  const node = el("p", `message${shown?.error ? " error" : ""}`, shown?.text ?? "");
  node.setAttribute("role", "status");
  return node;
}

function showNote(element, id) {
  const shown = notes.get(id);
  element.textContent = shown?.text ?? "";
  element.classList.toggle("error", Boolean(shown?.error));
}

// -- the parts ------------------------------------------------------------------------------------
function drawTable() {
  $("table-name").textContent = `${state.name} · ${state.game}`;
  const running = ["opening", "held"].includes(state.opening?.state);
  const held = state.opening?.state === "held";
  const status = running ? (held ? "opening held" : "opening…") : state.open ? "open" : "closed";
  $("table-open").textContent = `Table ${status}`;
  $("table-open").dataset.state = status;
  $("round").textContent = `Round ${state.rounds}${state.round_in_progress ? " in play" : ""}`;
  $("open-table").disabled = pending.has("open") || state.open;
  $("close-table").disabled = pending.has("close") || !state.open;
  showNote($("table-message"), tableAction);
  const steps = state.opening?.steps ?? opening.steps;
  const list = $("opening");
  list.replaceChildren(
    ...steps.map((step, n) => {
      const current = n === steps.length - 1 && (running || pending.has("open"));
      return el("li", current ? "current" : "done", step);
    }),
  );
  list.hidden = steps.length === 0;
  $("dealer-on-duty").textContent = state.dealer ?? "—";
  $("dealer-change").hidden = state.dealer === undefined; // a table whose rounds name no dealer
  $("change-dealer").disabled = pending.has("dealer");
  showNote($("dealer-message"), "dealer");
}

function drawFaults() {
  const section = $("faults");
  section.querySelector(".empty").hidden = state.faults.length > 0;
  section.querySelector(".items").replaceChildren(
    ...state.faults.map((fault) => {
      const id = `clear:${fault.code}`;
      const item = el(
        "li",
        "fault",
        "",
        el("strong", "code", fault.code),
        el("span", "detail", fault.detail),
        el("span", "clause", `Clause: ${fault.clause}`),
        el("span", "origin", `Raised by: ${fault.origin}`),
        button(id, "Clear", () => clear(fault.code), "big clear"),
        note(id),
      );
      item.dataset.code = fault.code;
      return item;
    }),
  );
}

function clear(code) {
  act(`clear:${code}`, `/v1/faults/${encodeURIComponent(code)}/clear`, {}, (reply) => `${reply.cleared} cleared by ${reply.by}`);
}

const RULINGS = {
  continue: "Continue",
  void: "Void the round",
};
const MEANS = { void: "every wager not yet settled is returned" };

function drawHeld() {
  const section = $("held");
  const held = state.held_round;
  section.querySelector(".empty").hidden = held !== null;
  const items = section.querySelector(".items");
  if (held === null) {
    items.replaceChildren();
    delete items.dataset.round;
  } else {
    const rulings = held.resolutions.map((resolution) => {
      const means = resolution === "continue" ? held.on_continue : MEANS[resolution];
      const ruling = button("resolve", RULINGS[resolution], () => resolve(resolution), "big ruling");
      ruling.dataset.resolution = resolution;
      return el("div", "ruling-choice", "", ruling, el("span", "means", means ?? ""));
    });
    items.replaceChildren(
      el("p", "what", `Round ${held.round}: ${held.irregularity}`),
      el("p", "clause", `Clause: ${held.clause} (${held.kind})`),
      el("div", "rulings", "", ...rulings),
    );
    items.dataset.round = held.round;
  }
  showNote($("held-message"), "resolve");
}

function resolve(resolution) {
  act("resolve", "/v1/rounds/held/resolve", { resolution }, (reply) => `ruled ${reply.resolution} by ${reply.by}`);
}

function drawDevices(devices) {
  $("devices").querySelector("tbody").replaceChildren(
    ...devices.map((device) => {
      const error = device.last_error;
      const link = el("td", `link ${device.link}`, device.link);
      const last = el("td", "last-error", error ? `${error.error}: ${error.detail}` : "—");
      const row = el("tr", "", "", el("th", "", device.name), link, last);
      row.dataset.device = device.name;
      return row;
    }),
  );
}

function drawProgressive(levels) {
  const section = $("progressive");
  section.hidden = levels === null;
  if (levels === null) return;
  section.querySelector("tbody").replaceChildren(
    ...levels.map((level) => {
      const id = `reset:${level.level}`;
      const won = level.frozen ? `seat ${level.win_seat ?? "?"}: ${money(level.win_cents ?? 0)}` : "—";
      const reset = el("td", "reset");
      if (level.frozen) {
        const key = el("input", "key");
        key.type = "password";
        key.placeholder = "reset key";
        key.autocomplete = "off";
        reset.append(key, button(id, "Reset", () => resetLevel(level.level, key), "reset-level"));
      }
      const row = el(
        "tr",
        level.frozen ? "frozen" : "",
        "",
        el("th", "", String(level.level)),
        el("td", "value", money(level.value_cents)),
        el("td", "", money(level.reset_cents)),
        el("td", "", money(level.limit_cents)),
        el("td", "hits", String(level.hits)),
        el("td", "won", won),
        reset,
      );
      row.dataset.level = level.level;
      return row;
    }),
  );
  const last = [...notes.keys()].filter((id) => id.startsWith("reset:")).pop();
  showNote($("progressive-message"), last);
}

function resetLevel(level, input) {
  const key = input.value;
  input.value = "";
  act(`reset:${level}`, `/v1/progressive/levels/${level}/reset`, { key }, (reply) => `level ${reply.reset} reset by ${reply.by}`);
}

function drawAudit(audit) {
  $("audit-head").textContent =
    audit.seq === null ? "no record yet" : `${audit.file} · seq ${audit.seq} · ${audit.hash.slice(0, 16)}…`;
  $("audit-sealed").textContent = audit.sealed
    ? `yes${audit.epoch === null ? "" : `, epoch ${audit.epoch}`}`
    : "no: this trail is not sealed";
  const verified = audit.verified;
  $("audit-verified").textContent = verified
    ? `${verified.at}: ${verified.files} file(s), ${verified.records} records, every link of the chain holds`
    : "a new trail: nothing earlier to verify";
}

// -- loading --------------------------------------------------------------------------------------
let devices = [];
let levels = null;
let audit = null;

/** What each part was last drawn from: a part is drawn again only when that changed, so that a
 * button is not replaced under a finger about to tap it. */
const drawn = new Map();

function changed(part, ...from) {
  const now = JSON.stringify([...from, [...pending], [...notes]]);
  if (drawn.get(part) === now) return false;
  drawn.set(part, now);
  return true;
}

function draw() {
  if (state === null) return;
  drawTable();
  if (changed("faults", state.faults)) drawFaults();
  if (changed("held", state.held_round)) drawHeld();
  if (changed("devices", devices)) drawDevices(devices);
  if (changed("progressive", levels)) drawProgressive(levels);
  if (audit !== null) drawAudit(audit);
}

async function load() {
  const [table, linked, trail] = await Promise.all([
    request("GET", "/v1/table"),
    request("GET", "/v1/devices"),
    request("GET", "/v1/audit"),
  ]);
  if ([table, linked, trail].some((reply) => reply.status === 401)) {
    location.assign("/"); // the session expired or was signed out: sign in again
    return;
  }
  state = table.body;
  devices = linked.body.devices;
  audit = trail.body;
  levels = state.progressive ? (await request("GET", "/v1/progressive")).body.levels : null;
  $("console").hidden = false;
  draw();
}

let timer = null;
/** Load again soon: the stream's messages come in bursts, one load answers a burst. */
function refresh() {
  clearTimeout(timer);
  timer = setTimeout(() => load().catch(() => {}), 100); // no reply: loaded again when the stream is back
}

function heard(message) {
  if (message.type === "opening") {
    if (message.state === "under way") {
      if (!["under way", "held"].includes(opening.state)) opening = { steps: [], state: "", by: opening.by };
      opening.state = message.state;
      opening.steps.push(message.step);
    } else {
      opening.state = message.state;
      const opened = message.state === "open";
      const text = opened && opening.by ? `opened by ${opening.by}` : message.step;
      notes.set("open", { text, error: !opened });
    }
  }
  refresh();
}

if (who.role !== "supervisor") {
  const refused = $("refused");
  refused.textContent =
    `The supervisor's console is for supervisors: ${who.operator} is signed in as a ${who.role}. ` +
    "Sign out, and sign in with a supervisor's token.";
  refused.hidden = false;
} else {
  $("open-table").addEventListener("click", () => {
    opening = { steps: [], state: "", by: "" };
    tableAction = "open";
    // 202: the day's opening on real equipment started (or joined), running on; its steps and its
    // end come on the stream. 200: opened at once.
    act("open", "/v1/table/open", {}, (reply, status) => {
      if (status === 200) return `opened by ${reply.by}`;
      opening.by = reply.by;
      if (opening.state === "open") return `opened by ${reply.by}`; // the stream told its end first
      // the stream told first that the opening is held (or refused): what it said stands
      if (["held", "refused"].includes(opening.state) && notes.has("open")) return notes.get("open");
      return `the opening is under way, started by ${reply.by}`;
    });
  });
  $("close-table").addEventListener("click", () => {
    tableAction = "close";
    act("close", "/v1/table/close", {}, (reply) => `closed by ${reply.by}: no new round begins`);
  });
  $("dealer-change").addEventListener("submit", (event) => {
    event.preventDefault();
    const dealer = $("dealer").value.trim();
    $("dealer").value = "";
    act("dealer", "/v1/table/dealer-change", { dealer }, (reply) => `${reply.dealer} is dealing`);
  });
  stream(heard, refresh);
  await load();
}
