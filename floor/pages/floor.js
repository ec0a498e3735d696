// The floor view: every table the floor service has heard, read once a second from
// GET /floor/v1/tables. With a token file configured the request needs the floor view's
// read-only token, asked for once and kept for the tab (sessionStorage), never in a cookie.
"use strict";

const TOKEN = "croupier-floor-token";
const body = document.querySelector("#tables tbody");
const status = document.getElementById("status");
const signIn = document.getElementById("sign-in");

function cell(row, text, className) {
  const td = row.insertCell();
  td.textContent = text;
  if (className) td.className = className;
  return td;
}

function money(cents) {
  return (cents / 100).toLocaleString("en-US", { style: "currency", currency: "USD" });
}

function stateText(table) {
  if (table.dark) return `dark (${table.dark.reason} at ${table.dark.at})`;
  const state = table.state || {};
  return state.reason ? `${state.status}: ${state.reason}` : state.status || "unknown";
}

function render(tables) {
  document.getElementById("empty").hidden = tables.length > 0;
  body.replaceChildren();
  for (const table of tables) {
    const row = body.insertRow();
    row.dataset.table = table.table;
    row.className = table.dark ? "dark" : (table.state || {}).status || "";
    cell(row, table.table, "name");
    cell(row, table.game || "", "game");
    cell(row, stateText(table), "state");
    cell(row, (table.faults || []).map((f) => `${f.device}: ${f.code}`).join(", "), "faults");
    cell(row, (table.state || {}).dealer || "", "dealer");
    cell(row, String(table.rounds ?? ""), "rounds");
    cell(row, String((table.counters || {}).rounds_per_hour ?? ""), "rounds-per-hour");
    const devices = cell(row, "", "devices");
    for (const [name, link] of Object.entries(table.links || {})) {
      const span = document.createElement("div");
      span.textContent = `${name}: ${link.state}${link.last_error ? ` (${link.last_error})` : ""}`;
      if (link.state !== "ready") span.className = "device-bad";
      devices.append(span);
    }
    cell(row, (table.meters || []).map((m) => `${m.level}: ${money(m.value_cents)}${m.frozen ? " frozen" : ""}`).join(", "), "meters");
    cell(row, table.heard_at, "heard");
  }
}

async function poll() {
  const token = sessionStorage.getItem(TOKEN);
  const headers = token ? { Authorization: `Bearer ${token}` } : {};
  try {
    const response = await fetch("/floor/v1/tables", { headers });
    if (response.status === 401) {
      sessionStorage.removeItem(TOKEN);
      signIn.hidden = false;
      document.getElementById("sign-in-error").textContent = token ? "That token was refused." : "";
      status.textContent = "signed out";
      return;
    }
    signIn.hidden = true;
    render((await response.json()).tables);
    status.textContent = `updated ${new Date().toLocaleTimeString()}`;
  } catch (error) {
    status.textContent = `the floor service is not answering (${error.message})`;
  }
}

signIn.addEventListener("submit", (event) => {
  event.preventDefault();
  sessionStorage.setItem(TOKEN, document.getElementById("token").value.trim());
  poll();
});

poll();
setInterval(poll, 1000);
