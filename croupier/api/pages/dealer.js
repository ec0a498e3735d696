// The dealer's screen.
import { session, signOut } from "./croupier.js";

const who = await session();
document.getElementById("operator").textContent = `${who.operator} (${who.role})`;
document.getElementById("sign-out").addEventListener("click", signOut);
