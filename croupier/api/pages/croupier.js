// The API client every page shares: requests as the operator signed in, the session, the event stream.
//
// The browser holds the session only as an HttpOnly cookie (docs/decisions/0033-browser-sign-in.md):
// no script reads it, and nothing here keeps the token. Every request that changes something carries
// the X-Croupier-Request header (which another site's page cannot add) and its own Idempotency-Key,
// so a request sent twice takes effect once (decision 0022): a request the network lost is sent
// again with the same key, and the service gives the first reply if it had taken it.

export const REQUEST_HEADER = "X-Croupier-Request";
/** Where each role goes once signed in. */
export const HOME = { dealer: "/dealer", supervisor: "/supervisor", floor: "/floor" };
/** The pauses (ms) before a POST the network lost is sent again, with the same key; then "not sent". */
const RESEND = [500, 1000, 2000];
/** The close code of a stream whose session ended (signed out, expired, signed in again). */
const SESSION_ENDED = 1008;
/** The longest wait (ms) between attempts to get the event stream back. */
const LONGEST_WAIT = 10000;

const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** A fresh Idempotency-Key: 128 random bits as hex (crypto.randomUUID needs a secure context). */
export function freshKey() {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** One request to the API; resolves to {status, body} (body: the JSON reply, or null), rejects when
 * the network failed (no reply). */
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

/**
 * POST with a fresh Idempotency-Key: one tap, one effect, however often the network repeats it.
 * When no reply comes (the network dropped, the service restarting) the same request is sent again
 * with the same key after each of RESEND's pauses; the last failure rejects, for the page to say
 * the request was not sent.
 */
export async function post(path, body) {
  const key = freshKey();
  for (const wait of RESEND) {
    try {
      return await request("POST", path, body, key);
    } catch {
      await pause(wait);
    }
  }
  return request("POST", path, body, key);
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
 * The event stream (/v1/events, the session cookie sent by the browser). onMessage gets each
 * message; onOpen runs each time it (re)opens, for the page to fetch again what it may have missed.
 *
 * While it is down the page says so ("Connection lost"): what it shows may be out of date. A stream
 * closed because its session ended goes to the sign-in page. Any other drop asks GET /v1/session
 * before opening the stream again, waiting longer after each failure: a session the service no
 * longer knows (its restart signs everyone out) is one refused request and the sign-in page, not a
 * refused stream every second.
 */
export function stream(onMessage, onOpen) {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  let failures = 0;
  const later = (then) => setTimeout(then, Math.min(1000 * 2 ** failures++, LONGEST_WAIT));
  const connect = () => {
    const socket = new WebSocket(`${scheme}//${location.host}/v1/events`);
    socket.onopen = () => {
      failures = 0;
      connectionLost(false);
      onOpen();
    };
    socket.onmessage = (event) => onMessage(JSON.parse(event.data));
    socket.onclose = (event) => {
      connectionLost(true);
      if (event.code === SESSION_ENDED) location.assign("/");
      else later(check);
    };
  };
  const check = async () => {
    const status = await request("GET", "/v1/session").then((reply) => reply.status, () => 0);
    if (status === 401) location.assign("/");
    else if (status === 200) connect();
    else later(check);
  };
  connect();
}

/** The banner under the header while the event stream is down. */
function connectionLost(lost) {
  let banner = document.getElementById("connection-lost");
  if (!banner && lost) {
    banner = el("div", "banner", "Connection lost: reconnecting… what this screen shows may be out of date");
    banner.id = "connection-lost";
    banner.setAttribute("role", "alert");
    document.querySelector("header").after(banner);
  }
  if (banner) banner.hidden = !lost;
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
