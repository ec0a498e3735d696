"""The clauses the procedure auditor does not judge, each with why: what the trail cannot show (a
hand's movement, who touched a card), or what the auditor does not check yet. docs/conformance.md
prints the reason beside the clause, so no clause is silently left out. A sub-clause whose parent
the auditor checks (686a.7(k)(1) under (k)) is shown as judged there."""

from __future__ import annotations

PHYSICAL = (
    "the trail records where each card went, not the dealer's hands or the layout: the floor "
    "supervisor and surveillance see this"
)
TOUCHED = "who handles a card at the table is not in the trail: surveillance sees it"
NOT_YET = "not judged yet, though the records carry what is needed:"
SHUFFLE = "the shuffle is the shuffler's, between rounds: its count and result are its own records"
COLLECTED = (
    "the shoe's cards are collected between rounds (the shoe's records); the next batch's burn is "
    "judged under (c)"
)
RACK = "the rack's order is recorded (`pickup`) and rebuilt by `croupier replay`; " + NOT_YET[:-1]

NOT_JUDGED: dict[str, str] = {
    # 58 Pa. Code § 672a.7, Free Bet Blackjack
    "672a.7(b)": PHYSICAL,
    "672a.7(d)(1)": COLLECTED,
    "672a.7(d)(2)": SHUFFLE,
    "672a.7(d)": "the cover card makes the next batch's burn due, judged under (c)",
    "672a.7(h)(2)": "each decision is judged by the cards it calls for ((i), (j)(1))",
    "672a.7(j)": "judged through (j)(1): no card to a hand of 21",
    "672a.7(j)(2)": f"{NOT_YET} one card after a double down",
    "672a.7(m)": f"{NOT_YET} no dealer draw when no outcome can change",
    "672a.7(r)": f"{NOT_YET} the order of collections and payments",
    "672a.7(r)(1)": f"{NOT_YET} the order of collections and payments",
    "672a.7(r)(2)": f"{NOT_YET} the order of collections and payments",
    "672a.7(s)": RACK,
    "672a.7(t)": TOUCHED,
    # § 686a.7, Over/Under
    "686a.7(b)": PHYSICAL,
    "686a.7(d)": "the cover card makes the next batch's burn due, judged under (c)",
    "686a.7(d)(1)": COLLECTED,
    "686a.7(d)(2)": SHUFFLE,
    "686a.7(h)": f"{NOT_YET} the Bonus Wager of a surrender kept in play (its settlement is judged, (m))",
    "686a.7(n)": RACK,
    "686a.7(o)": TOUCHED,
    # § 677a.10, Heads Up Hold 'Em from an automated dealing shoe
    "677a.10(a)(1)": SHUFFLE,
    "677a.10(e)": f"{NOT_YET} the stub to the rack after a count of 52",
    "677a.10(f)": f"{NOT_YET} the void and the deck removed after a wrong count",
    "677a.10(g)": f"{NOT_YET} the community cards first on an auto-reshuffling shoe",
    # § 657a.9, Crazy 4 Poker dealt from the hand
    "657a.9(a)(1)": SHUFFLE,
    "657a.9(a)(2)": PHYSICAL,
    "657a.9(e)": f"{NOT_YET} the stub to the rack after a count of 52",
    "657a.9(f)": "a void's returns are accepted with no hand known; the misdeal finding is not judged yet",
}
