// The sign-in page: the token is sent once, for the session cookie, and then forgotten.
//
// The form cannot send the token by itself: its field has no name, it posts (never a GET with the
// token in the address, the history and the logs), and its button is off until this script, which
// sends the token as JSON, has loaded.
import { HOME, signIn } from "./croupier.js";

const form = document.getElementById("sign-in");
const input = document.getElementById("token");
const error = document.getElementById("sign-in-error");
document.getElementById("sign-in-button").disabled = false;

form.addEventListener("submit", async (event) => {
  event.preventDefault();
  const token = input.value;
  input.value = "";
  error.textContent = "";
  const { status, body } = await signIn(token);
  if (status === 200) {
    location.assign(HOME[body.role]);
  } else {
    error.textContent = body?.error ?? `sign-in refused (${status})`;
  }
});
