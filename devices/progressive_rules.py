"""The rules of a progressive table game system, alone and linked, each with the clause it serves.

They are one module of their own because both the table's controller (devices/progressive.py) and
the linked levels above it (devices/linked.py) record and refuse under them: a linked hit is frozen
until the keyed reset as a hit at a table alone is, and its records cite the same clause.
"""

from __future__ import annotations

from vocabulary.rules import Rule

NO_MORE_BETS = Rule(
    "657a.9(a)(3)",
    'at "no more bets" the progressive system is locked: no further progressive wager is accepted',
)
CHIP_COUNT = Rule(
    "657a.9(a)(3)",
    "the value chips collected equal the Progressive Payout Wagers the system accepted",
)
#: The kind of the audit record of each chip count, the first and every recount (decision 0027).
CHIP_COUNT_RECORD = "chips_counted"
READY_TO_DEAL = Rule("657a.9(a)(3)", "no card is dealt before the progressive lockout and the chip count")
NEXT_ROUND = Rule("657a.9(a)(3)", "betting opens again only after the locked round was reconciled")
AWARD_TO_WAGER = Rule(
    "657a.1", "a progressive award goes to a seat whose wager the system accepted this round"
)
KEYED_RESET = Rule("605a.7(a)", "a hit freezes its level (jackpot lock) until the keyed reset")
METERS_AGREE = Rule(
    "605a.7(a)",
    "the meters agree with the wagers accepted and the awards paid, and the sign shows the meter kept",
)
SIGN_SHOWS = Rule(
    "605a.7(a) (visible meter; Arkansas: a win shown within 30 seconds)",
    "the meter is visible at the table and a win is shown on it within 30 seconds",
)

LINK_HEARD = Rule(
    "decision 0039",
    "a linked progressive wager is accepted only while the link controller is heard and reconciled "
    "and no hit locks a linked level; the base game plays on",
)
LINK_RECONCILED = Rule(
    "decision 0039",
    "the contributions the link controller applied are the progressive wagers the table accepted",
)
LINK_MISMATCH = "LINK_MISMATCH"
SENSORS_LOCKED_OUT = Rule(
    "decision 0043",
    "while the table refuses progressive wagers, the controller's sensors are locked out: "
    "the lock accepts none",
)
LOCKOUT_FAILED = "LOCKOUT_FAILED"
DEVICE_RECONCILED = Rule(
    "decision 0043",
    "the progressive wagers the controller itself accepted are the contributions the table sent",
)
