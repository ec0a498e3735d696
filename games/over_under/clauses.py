"""The clauses of 58 Pa. Code § 686a.7 and the rules around them, as the Rule objects the round cites.

Every guard and every irregularity of an Over/Under round names one of these rules, so a refusal
or an irregularity says which clause it enforces, and games.conformance can generate
docs/conformance.md from the code. Rules from outside the seed section cite their source (and are
configuration where no Pennsylvania text was found).
"""

from __future__ import annotations

from games.common.records import wagers_replaced_reading
from games.common.shoe_steps import BURN_READING
from vocabulary.rules import Rule

SECTION = "686a.7"
GAME_ID = "over-under"

#: Where a clause allows two readings: the one taken, and why (docs/conformance.md, beside the clause).
READINGS: dict[str, str] = {
    "686a.7(e)": wagers_replaced_reading('"After all Ante and Bonus Wagers have been placed"'),
    "686a.7(c)": BURN_READING,
    "686a.7(h)": (
        "\"A player's decision to surrender and forfeit the Ante Wager does not also forfeit the "
        "player's Bonus Wager, if made, and the Bonus Wager shall be settled in accordance with "
        'subsection (k)." Read as: the Bonus Wager stays in action, wins or loses on the Hand\'s total '
        "as (m) says of every Bonus Wager, and a winning one is paid by the payout odds, as (k) "
        'directs ("A player shall win and be paid in accordance with § 686a.8"). Why: (k)\'s two '
        "conditions need an Over 23 or Under 18 Wager, which a player who surrendered has not placed, "
        "so read as the condition of the Bonus's win (k) could never be met and the Bonus would be "
        "lost on every total, which is the forfeit (h) says the surrender does not bring; (m) is the "
        "only clause that says when a Bonus Wager wins and loses, and it names no exception for a "
        "surrender. The settlement cites (m) for the result and (h) for the Bonus kept after the "
        "surrender (its record)."
    ),
    "686a.7(f)": " ".join(
        [
            '"Immediately after the first card is dealt to each player, but prior to',
            "any additional cards being dealt the dealer shall start with the player farthest to the",
            "dealer's left and continue around the table in a clockwise direction and determine the",
            'decision of each player." Read as: every player decides, clockwise, before any additional card',
            "is dealt to anyone; then (i) and (j) run player by player, clockwise: two cards, settlement,",
            'rack, the next player. Why: "prior to any additional cards being dealt" names no player, so',
            'no additional card may come before the last decision. Every other clause is kept: (i) "After',
            "a player indicates his decision, the dealer shall deal face up the two additional cards to",
            "the player's hand\" holds, each player's cards following that player's decision; (j) \"After",
            "the two additional cards have been dealt to a player, the dealer shall settle the player's",
            "wagers placed prior to and during the round of play, remove the cards and place them in the",
            'discard rack, and then move to the next player" orders the cards and the settlements player',
            "by player, not the decisions. The other reading (each player decides just before his own two",
            "cards) would deal additional cards while later players have yet to decide, which (f)",
            "forbids, and would let a later player see earlier players' Hands before deciding.",
        ]
    ),
}

#: Every lettered clause and sub-clause of § 686a.7, with the gist of its text.
CLAUSES: dict[str, str] = {
    "686a.7(a)": "All cards are dealt from a dealing shoe, loaded after the shuffle and cut",
    "686a.7(b)": "Each card is taken from the shoe and placed on the appropriate area of the layout",
    "686a.7(c)": "A burn card after each full batch is loaded and for each new dealer",
    "686a.7(d)": "A cover card is set aside and the hand completed",
    "686a.7(d)(1)": "Then the cards remaining in the shoe are collected into the discard rack",
    "686a.7(d)(2)": "Then the cards are shuffled",
    "686a.7(e)": "After the Ante and Bonus Wagers, one card face up to each Ante position, clockwise",
    "686a.7(f)": "After every first card, each player's decision, clockwise, before any additional card",
    "686a.7(g)": "Each player elects one of (1)-(3) when asked",
    "686a.7(g)(1)": "An Over 23 Wager equal to the Ante Wager",
    "686a.7(g)(2)": "An Under 18 Wager equal to the Ante Wager",
    "686a.7(g)(3)": "Surrender: the Ante Wager is collected",
    "686a.7(h)": "A surrender does not forfeit the Bonus Wager, settled in accordance with (k)",
    "686a.7(i)": "Two more cards face up to the player after the decision, even after a surrender",
    "686a.7(j)": "The player is settled and the cards discarded before the next player",
    "686a.7(k)": "A player wins and is paid by § 686a.8 if (1) or (2)",
    "686a.7(k)(1)": "Ante and Over 23 Wagers win on a total of 24 to 33",
    "686a.7(k)(2)": "Ante and Under 18 Wagers win on a total of 6 to 17",
    "686a.7(l)": "Ante and Over 23 or Under 18 Wagers lose on a total of 18 to 23",
    "686a.7(m)": "The Bonus Wager wins on 6-12 or 27-33 and loses on 13-26",
    "686a.7(n)": "The remaining cards go to the discard rack so that each hand can be reconstructed",
    "686a.7(o)": "Players and spectators may not handle, remove or alter the cards",
}

# -- the section, clause by clause ---------------------------------------------------------------------
PROCEDURE_ORDER = Rule("686a.7", "each step of a round comes in the order the section lays down")
SHOE_LOADED = Rule("686a.7(a)", "cards are dealt only from a dealing shoe loaded with shuffled, cut cards")
CARD_PLACEMENT = Rule("686a.7(b)", "each card goes to the area of the layout the round names for it")
BURN_DUE = Rule("686a.7(c)", "no card is dealt while a burn is due for a new batch or a new dealer")
COVER_CARD_SET_ASIDE = Rule("686a.7(d)", "a cover card is set aside and the round completed")
COVER_CARD_OUT_OF_PLACE = Rule("686a.7(d)", "a cover card comes out of the shoe only when a card is due")
COLLECT_AFTER_COVER = Rule(
    "686a.7(d)(1)", "after the round with the cover card, the cards left in the shoe are collected"
)
RESHUFFLE_AFTER_COVER = Rule(
    "686a.7(d)(2)", "no round is dealt after a cover card until the cards have been reshuffled"
)
DEAL_AFTER_WAGERS = Rule("686a.7(e)", "the deal starts after the Ante and Bonus Wagers are placed")
WAGERS_REPLACED = Rule(
    "686a.7(e)",
    "a position's Ante and Bonus Wagers placed again before the deal replace its earlier ones, recorded "
    "withdrawn",
)
FIRST_CARDS = Rule("686a.7(e)", "one card face up to each Ante position, clockwise from the dealer's left")
DECIDE_AFTER_FIRST_CARDS = Rule(
    "686a.7(f)", "every player's decision comes after every first card and before any additional card"
)
DECISION_ORDER = Rule("686a.7(f)", "decisions are asked clockwise, from the player farthest to the left")
ONE_ELECTION = Rule("686a.7(g)", "a player elects exactly one of Over 23, Under 18 or Surrender")
OVER_EQUALS_ANTE = Rule("686a.7(g)(1)", "an Over 23 Wager equals the player's Ante Wager")
UNDER_EQUALS_ANTE = Rule("686a.7(g)(2)", "an Under 18 Wager equals the player's Ante Wager")
SURRENDER_COLLECTS_ANTE = Rule("686a.7(g)(3)", "a surrendered Ante Wager is collected at once")
SURRENDER_KEEPS_BONUS = Rule("686a.7(h)", "a surrender leaves the Bonus Wager in play, settled by (m)")
TWO_MORE_CARDS = Rule(
    "686a.7(i)", "after the decision two more cards face up to the player, even after a surrender"
)
SETTLE_THEN_NEXT = Rule(
    "686a.7(j)", "the player is settled and the cards go to the rack before the next player"
)
WIN_OVER = Rule("686a.7(k)(1)", "Ante and Over 23 Wagers are paid on a total of 24 to 33")
WIN_UNDER = Rule("686a.7(k)(2)", "Ante and Under 18 Wagers are paid on a total of 6 to 17")
OTHER_SIDE_LOSES = Rule(
    "686a.7(k)(1); 686a.7(k)(2)",
    "an Over 23 (Under 18) Wager is paid only on the totals (k) names; on the other side's totals "
    "it and the Ante lose (the section names no third outcome)",
)
LOSE_MIDDLE = Rule("686a.7(l)", "Ante and Over 23 or Under 18 Wagers lose on a total of 18 to 23")
BONUS_WINS = Rule("686a.7(m)", "a Bonus Wager is paid by the posted table on 6-12 and 27-33")
BONUS_LOSES = Rule("686a.7(m)", "a Bonus Wager loses on a total of 13 to 26")
BONUS_TABLE_TOTALS = Rule("686a.7(m)", "the Bonus pay table pays exactly the totals (m) names as winning")
DISCARD_ORDER = Rule("686a.7(n)", "cards go to the discard rack in an order that reconstructs each hand")
DISCARD_COUNT = Rule(
    "686a.7(n); 686a.7(o)", "every card of the round reaches the discard rack; none is removed"
)

# -- rules from outside the seed section, each with its source -------------------------------------------
ANTE_REQUIRED = Rule("686a.1", "an Ante Wager is required; the Bonus Wager is optional")
BONUS_POSTED = Rule("686a.1", "a Bonus Wager is taken only against a posted (configured) payout table")
POSITIONS = Rule("house layout (686a.2 not found)", "the table's betting positions")
NO_JOKERS = Rule("603a.15", "Over/Under is dealt without jokers")
VOID = Rule("686a.7 (silent); decision 0008", "a voided round returns every wager not settled yet")
HELD = Rule(
    "686a.7 (silent); decision 0008",
    "an irregularity the section does not resolve holds the round until a supervisor resolves it",
)
