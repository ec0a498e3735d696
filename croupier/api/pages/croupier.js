// The API client every page shares: requests as the operator signed in, the session, the event stream.
//
// The browser holds the session only as an HttpOnly cookie (docs/decisions/0033-browser-sign-in.md):
// no script reads it, and nothing here keeps the token. Every request that changes something carries
// the X-Croupier-Request header (which another site's page cannot add) and its own Idempotency-Key,
// so a request sent twice takes effect once (decision 0022).

export const REQUEST_HEADER = "X-Croupier-Request";
/** Where each role goes once signed in. */
export const HOME = { dealer: "/dealer", supervisor: "/supervisor" };

/** A fresh Idempotency-Key: 128 random bits as hex (crypto.randomUUID needs a secure context). */
export function freshKey() {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** One request to the API; resolves to {status, body} (body: the JSON reply, or null). */
export async function request(method, path, body = undefined, key = undefined) {
  const headers = { Accept: "application/json" };
  if (method !== "GET") headers[REQUEST_HEADER] = "1";
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (key !== undefined) headers["Idempotency-Key"] = key;
  const response = await fetch(path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    credentials: "same-origin",
    cache: "no-store",
  });
  let reply = null;
  try {
    reply = await response.json();
  } catch {
    reply = null;
  }
  return { status: response.status, body: reply };
}

/** POST with a fresh Idempotency-Key: one tap, one effect, however often the network repeats it. */
export function post(path, body) {
  return request("POST", path, body, freshKey());
}

export function signIn(token) {
  return request("POST", "/v1/session", { token });
}

export async function signOut() {
  await request("DELETE", "/v1/session");
  location.assign("/");
}

/** Who is signed in ({operator, role, expires_in}); without a session, back to the sign-in page. */
export async function session() {
  const { status, body } = await request("GET", "/v1/session");
  if (status !== 200) {
    location.assign("/");
    return new Promise(() => {});
  }
  return body;
}

/**
 * The event stream (/v1/events, the session cookie sent by the browser), opened again a moment
 * after it drops. onMessage gets each message; onOpen runs each time it (re)opens, for the page to
 * fetch again what it may have missed.
 */
export function stream(onMessage, onOpen) {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  const connect = () => {
    const socket = new WebSocket(`${scheme}//${location.host}/v1/events`);
    socket.onopen = () => onOpen();
    socket.onmessage = (event) => onMessage(JSON.parse(event.data));
    socket.onclose = () => setTimeout(connect, 1000);
  };
  connect();
}

/** An element with its class and text, and children. */
export function el(tag, className = "", text = "", ...children) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text) node.textContent = text;
  node.append(...children);
  return node;
}

/** Cents as money: 1250000 -> "$12,500.00". */
export function money(cents) {
  return `$${(cents / 100).toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
}
