// The floor view: every table the floor service has heard, read once a second from
// GET /floor/v1/tables, and each linked progressive's levels from GET /floor/v1/links: each level's
// value and the hits that lock it, each table of the link and whether it takes progressive wagers
// (docs/decisions/0039-linked-jackpots-paid-in-the-order-received.md). With a token file configured the browser has signed in on the shared sign-in
// page (/) and holds only the HttpOnly session cookie (docs/decisions/0033-browser-sign-in.md): no
// script here reads a token or a session. A refused request (signed out, expired, the service
// restarted) goes back to the sign-in page.
import { money, request, signOut } from "/pages/croupier.js";

const body = document.querySelector("#tables tbody");
const status = document.getElementById("status");
const signOutButton = document.getElementById("sign-out");

function cell(row, text, className) {
  const td = row.insertCell();
  td.textContent = text;
  if (className) td.className = className;
  return td;
}

function stateText(table) {
  if (table.dark) return `dark (${table.dark.reason} at ${table.dark.at})`;
  if (table.silent) return `silent (not heard since ${table.heard_at})`;
  const state = table.state || {};
  return state.reason ? `${state.status}: ${state.reason}` : state.status || "unknown";
}

function render(tables) {
  document.getElementById("empty").hidden = tables.length > 0;
  body.replaceChildren();
  for (const table of tables) {
    const row = body.insertRow();
    row.dataset.table = table.table;
    row.className = table.dark ? "dark" : table.silent ? "silent" : (table.state || {}).status || "";
    cell(row, table.table, "name");
    cell(row, table.game || "", "game");
    cell(row, stateText(table), "state");
    cell(row, (table.faults || []).map((f) => `${f.device}: ${f.code}`).join(", "), "faults");
    cell(row, (table.state || {}).dealer || "", "dealer");
    cell(row, String(table.rounds ?? ""), "rounds");
    cell(row, String((table.counters || {}).rounds_per_hour ?? ""), "rounds-per-hour");
    cell(row, String((table.counters || {}).held_rounds ?? ""), "held-rounds");
    const devices = cell(row, "", "devices");
    for (const [name, link] of Object.entries(table.links || {})) {
      const span = document.createElement("div");
      span.textContent = `${name}: ${link.state}${link.last_error ? ` (${link.last_error})` : ""}`;
      if (link.state !== "ready") span.className = "device-bad";
      devices.append(span);
    }
    cell(row, (table.meters || []).map((m) => `${m.level}: ${money(m.value_cents)}${m.frozen ? " frozen" : ""}`).join(", "), "meters");
    const unspooled = (table.counters || {}).unspooled || 0;  // messages the table's disk refused
    const from = table.counted_from === null ? "no birth yet" : `from seq ${table.counted_from}`;  // its past before, not gaps
    const counted = cell(row, `${from}, gaps ${table.gaps}, repeats ${table.repeats}, malformed ${table.malformed}, unspooled ${unspooled}`, "counted");
    if (table.gaps || table.malformed || unspooled) counted.dataset.bad = "";
    cell(row, table.heard_at, "heard");
  }
}

function hitText(hit) {
  return `${hit.table} seat ${hit.seat}, round ${hit.round}: ${money(hit.amount_cents)}`;
}

function renderLinks(links, tables) {
  document.getElementById("links").hidden = links.length === 0;
  const levels = document.querySelector("#link-levels tbody");
  const linked = document.querySelector("#link-tables tbody");
  levels.replaceChildren();
  linked.replaceChildren();
  const heard = Object.fromEntries(tables.map((table) => [table.table, table]));
  for (const link of links) {
    for (const level of link.levels) {
      const row = levels.insertRow();
      row.dataset.link = link.link;
      row.dataset.level = level.level;
      row.className = level.locked ? "locked" : "unlocked";
      cell(row, link.link, "link");
      cell(row, String(level.level), "level");
      cell(row, money(level.value_cents), "value");
      cell(row, money(level.limit_cents), "limit");
      cell(row, level.locked ? level.hits.map(hitText).join("; ") : "not locked", "locked-by");
    }
    for (const name of link.tables) {
      const table = heard[name];
      const row = linked.insertRow();
      row.dataset.link = link.link;
      row.dataset.table = name;
      let wagers = "taken";
      if (!table) wagers = "not heard yet";
      else if (table.dark) wagers = "table dark";
      else if (table.wagers_locked) wagers = `locked: ${table.wagers_locked}`;
      row.className = wagers === "taken" ? "taken" : "refused";
      cell(row, link.link, "link");
      cell(row, name, "name");
      cell(row, wagers, "wagers");
      // a level's limit above this table's controller's (decision 0050): the level stops at the lowest
      const over = link.limits.filter((limit) => limit.table === name).map((limit) => limit.reason);
      const limits = cell(row, over.length ? over.join("; ") : "within", "limits");
      if (over.length) limits.dataset.over = "true";
    }
  }
}

async function poll() {
  try {
    const { status: code, body: reply } = await request("GET", "/floor/v1/tables");
    const { status: linksCode, body: linked } = await request("GET", "/floor/v1/links");
    if (code === 401 || linksCode === 401) {
      location.assign("/");
      return;
    }
    if (code !== 200 || linksCode !== 200) {  // 503: the floor's store cannot be read for now
      status.textContent = `the floor service cannot read its store: ${(code !== 200 ? reply : linked).error}`;
      return;
    }
    render(reply.tables);
    renderLinks(linked.links, reply.tables);
    status.textContent = `updated ${new Date().toLocaleTimeString()}`;
  } catch (error) {
    status.textContent = `the floor service is not answering (${error.message})`;
  }
}

// Signed in (a view with a token file): the way out; an open view (loopback, no token) has none.
request("GET", "/v1/session").then(({ status: code }) => {
  signOutButton.hidden = code !== 200;
}, () => {});
signOutButton.addEventListener("click", signOut);

poll();
setInterval(poll, 1000);
