"""The clauses of 58 Pa. Code § 672a.7 and the rules around them, as the Rule objects the round cites.

Every guard and every irregularity of a Free Bet Blackjack round names one of these rules, so a
refusal or an irregularity says which clause it enforces, and games.conformance can generate
docs/conformance.md from the code. Rules that come from outside the seed section cite their source (and
are configuration where no Pennsylvania text was found).
"""

from __future__ import annotations

from games.common.records import wagers_replaced_reading
from games.common.shoe_steps import BURN_READING
from vocabulary.rules import PUBLISHED_RULES, Rule

SECTION = "672a.7"
GAME_ID = "free-bet-blackjack"

#: Every lettered clause and sub-clause of § 672a.7, with the gist of its text.
CLAUSES: dict[str, str] = {
    "672a.7(a)": "All cards are dealt from a dealing shoe, loaded after the shuffle and cut",
    "672a.7(b)": "Each card is taken from the shoe and placed on the appropriate area of the layout",
    "672a.7(c)": "A burn card after each full batch is loaded and for each new dealer",
    "672a.7(d)": "A cover card is set aside and the hand completed",
    "672a.7(d)(1)": "Then the cards remaining in the shoe are collected into the discard rack",
    "672a.7(d)(2)": "Then the cards are shuffled",
    "672a.7(e)": "After the wagers, deal from the player farthest to the dealer's left, clockwise",
    "672a.7(e)(1)": "One card face up to each box with a Blackjack Wager",
    "672a.7(e)(2)": "One card face up to the dealer",
    "672a.7(e)(3)": "A second card face up to each box with a wager",
    "672a.7(e)(4)": "A second card face down to the dealer",
    "672a.7(f)": "Insurance or even money when the dealer's first card is an ace",
    "672a.7(g)": "Ace or ten-value up card: the card reader says whether the hole card gives Blackjack",
    "672a.7(g)(1)": "Dealer Blackjack, player Blackjack: return the wager, collect Push 22, pay insurance",
    "672a.7(g)(2)": "Dealer Blackjack, no player Blackjack: collect wager and Push 22, pay insurance",
    "672a.7(h)": "Otherwise players act from the dealer's left, clockwise",
    "672a.7(h)(1)": "A player Blackjack is announced and paid in turn; its cards tucked under a Push 22",
    "672a.7(h)(2)": "Other players double, split, stand or draw; no surrender",
    "672a.7(i)": "The dealer deals face up the cards each decision needs",
    "672a.7(j)": "A player may draw while the total is less than 21",
    "672a.7(j)(1)": "No card on a hard or soft 21",
    "672a.7(j)(2)": "One card only after a double down",
    "672a.7(k)": "After the players' decisions the hole card is turned face up",
    "672a.7(l)": "The dealer draws to 17 and stands on all 17s, face up, announcing the total",
    "672a.7(m)": "No draw when it cannot change an outcome, unless Push 22 Wagers remain",
    "672a.7(n)": "Settlement starts from whether the dealer's total is 22",
    "672a.7(n)(1)": "Dealer 22: Blackjack Wagers push, lammers collected, Push 22 Wagers paid",
    "672a.7(n)(2)": "Not 22: Push 22 Wagers collected, the rest settled by (o)-(q)",
    "672a.7(o)": "A winning hand is paid, and an equivalent amount for each Free Bet lammer",
    "672a.7(o)(1)": "The player has 21 or less and the dealer exceeds 21 (22 pushes)",
    "672a.7(o)(2)": "The player's total exceeds the dealer's without exceeding 21",
    "672a.7(p)": "Equal totals tie: the wager is returned, lammers collected",
    "672a.7(q)": "A losing hand's wager and lammers are collected",
    "672a.7(q)(1)": "The dealer has 21 or less and the player exceeds 21",
    "672a.7(q)(2)": "The dealer's total exceeds the player's without exceeding 21",
    "672a.7(r)": "Settlement follows one designated procedure, from the dealer's right",
    "672a.7(r)(1)": "Collect all losing wagers counterclockwise, then pay all winning wagers",
    "672a.7(r)(2)": "Collect and pay each player in turn, counterclockwise",
    "672a.7(s)": "Cards go to the discard rack in an order that lets each hand be reconstructed",
    "672a.7(t)": "Players and spectators may not handle, remove or alter the cards",
}

#: Where a clause allows two readings, the one taken and why (docs/conformance.md, beside the clause).
READINGS: dict[str, str] = {
    "672a.7(e)": wagers_replaced_reading(
        '"After all Blackjack and optional Push 22 Wagers have been placed"'
    ),
    "672a.7(c)": BURN_READING,
    "672a.7(h)(1)": (
        '"start with the player farthest to the dealer\'s left and continue around the table" governs '
        "both (h)(1) and (h)(2): each player is taken in turn, so a Blackjack is announced and paid "
        "when the dealer reaches its seat, once every hand of the seats before it has finished "
        "(stood, doubled and dealt its card, reached 21 or more, or been paid), and never before an "
        "earlier seat has finished deciding; paying every Blackjack when the deal ends would skip "
        "ahead of the players still to act. A Blackjack that took even money under (f) was paid then."
    ),
    "672a.7(p)": (
        '"A Blackjack Wager shall tie and be returned to the player and any Free Bet lammers collected '
        "if the total point count of the player's hand is the same as the total point count of the "
        "dealer's hand.\" Read as comparing hands of 21 or less: a hand over 21 loses whatever the "
        "dealer's total, equal totals over 21 included. Why: read word for word, (p) would return a "
        "wager of 24 against a dealer's 24 while (o)-(q) settle no hand over 21 against a dealer's 23 "
        "or 25 ((o)(1) pays only a hand of 21 or less; (q)(1) collects a hand over 21 only against a "
        'dealer of 21 or less), so whether a busted hand is returned or lost would turn on which total '
        "the dealer drew past it. One rule covers every case: the hand over 21 is lost, as (q)(1) has "
        'it against any total the player could not beat, as (n)(1) returns "all remaining" wagers on a '
        "dealer's 22 rather than all wagers, and as the game's published rules say (a player's hand "
        "over 21 loses even when the dealer's 22 pushes the others). (p) keeps its meaning for every "
        "hand that can be compared: totals of 21 or less. The other reading would return a lost hand "
        "by chance of the dealer's draw."
    ),
}

# -- the section, clause by clause ---------------------------------------------------------------------
PROCEDURE_ORDER = Rule("672a.7", "each step of a round comes in the order the section lays down")
SHOE_LOADED = Rule("672a.7(a)", "cards are dealt only from a dealing shoe loaded with shuffled, cut cards")
CARD_PLACEMENT = Rule("672a.7(b)", "each card goes to the area of the layout the round names for it")
BURN_DUE = Rule("672a.7(c)", "no card is dealt while a burn is due for a new batch or a new dealer")
COVER_CARD_SET_ASIDE = Rule("672a.7(d)", "a cover card is set aside and the round completed")
COVER_CARD_OUT_OF_PLACE = Rule("672a.7(d)", "a cover card comes out of the shoe only when a card is due")
COLLECT_AFTER_COVER = Rule(
    "672a.7(d)(1)", "after the round with the cover card, the cards left in the shoe are collected"
)
RESHUFFLE_AFTER_COVER = Rule(
    "672a.7(d)(2)", "no round is dealt after a cover card until the cards have been reshuffled"
)
DEAL_AFTER_WAGERS = Rule("672a.7(e)", "the deal starts after the wagers, from the dealer's left, clockwise")
WAGERS_REPLACED = Rule(
    "672a.7(e)", "a box's wagers placed again before the deal replace its earlier ones, recorded withdrawn"
)
DEAL_FIRST_CARDS = Rule("672a.7(e)(1)", "one card face up to each box holding a Blackjack Wager")
DEAL_DEALER_UP = Rule("672a.7(e)(2)", "one card face up to the dealer")
DEAL_SECOND_CARDS = Rule("672a.7(e)(3)", "a second card face up to each box holding a wager")
DEAL_HOLE_CARD = Rule("672a.7(e)(4)", "a second card face down to the dealer")
INSURANCE_ON_ACE = Rule(
    "672a.7(f)", "insurance and even money are offered only when the dealer's first card is an ace"
)
PEEK = Rule(
    "672a.7(g)",
    "on an ace or ten-value up card the reader answers only whether the hole card gives Blackjack",
)
NO_CARDS_AFTER_DEALER_BLACKJACK = Rule("672a.7(g)", "no card is dealt once the dealer has a Blackjack")
PEEK_CONSISTENT = Rule("672a.7(g)", "the hole card turned up agrees with the card reader's answer")
DEALER_BLACKJACK_PLAYER_BLACKJACK = Rule(
    "672a.7(g)(1)", "dealer and player Blackjack: wager returned, Push 22 collected, insurance paid"
)
DEALER_BLACKJACK_NO_PLAYER_BLACKJACK = Rule(
    "672a.7(g)(2)", "dealer Blackjack: the player's wager and Push 22 collected, insurance paid"
)
PLAY_ORDER = Rule("672a.7(h)", "players act from the dealer's left, clockwise, one hand at a time")
BLACKJACK_PAID = Rule(
    "672a.7(h)(1)",
    "a player Blackjack is paid 3 to 2 when the dealer reaches its seat; its cards stay under a Push 22",
)
PLAYER_DECISIONS = Rule("672a.7(h)(2)", "a player doubles, splits, stands or draws")
NO_SURRENDER = Rule("672a.7(h)(2)", "players may not surrender in Free Bet Blackjack")
CARDS_FOR_DECISION = Rule("672a.7(i)", "the dealer deals face up only the cards a decision needs")
DRAW_BELOW_21 = Rule("672a.7(j)", "a player may draw only while the hand's total is less than 21")
NO_DRAW_ON_21 = Rule("672a.7(j)(1)", "a hand with a hard or soft 21 draws no more cards")
ONE_CARD_AFTER_DOUBLE = Rule("672a.7(j)(2)", "a doubled hand receives exactly one more card")
HOLE_AFTER_DECISIONS = Rule("672a.7(k)", "the hole card is turned up after every decision is implemented")
HOLE_CARD_MATCHES = Rule("672a.7(k); 672a.7(t)", "the card turned up is the card dealt face down, unaltered")
DEALER_DRAWS_TO_17 = Rule("672a.7(l)", "the dealer draws face up to 17 and stands on all 17s")
NO_DRAW_WITHOUT_EFFECT = Rule(
    "672a.7(m)", "without Push 22 Wagers the dealer draws no card that cannot change an outcome"
)
DRAW_FOR_PUSH_22 = Rule(
    "672a.7(m)", "with Push 22 Wagers on the table the dealer draws even if every hand is settled"
)
SETTLE_AFTER_DRAW = Rule("672a.7(n)", "wagers are settled only after the dealer's last card")
DEALER_22 = Rule(
    "672a.7(n)(1)", "dealer 22: remaining Blackjack Wagers push, lammers collected, Push 22 paid"
)
DEALER_NOT_22 = Rule("672a.7(n)(2)", "dealer not 22: Push 22 Wagers collected")
LAMMER_PAID = Rule("672a.7(o)", "a winning hand's Free Bet lammers are paid an equivalent amount")
WIN_DEALER_BUST = Rule("672a.7(o)(1)", "a hand of 21 or less wins when the dealer exceeds 21 (not 22)")
WIN_HIGHER = Rule("672a.7(o)(2)", "a hand wins when it beats the dealer's total without exceeding 21")
TIE = Rule("672a.7(p)", "equal totals: the wager is returned and the lammers collected")
LAMMER_COLLECTED = Rule(
    "672a.7(q); 672a.7(p); 672a.7(n)(1)", "a Free Bet lammer on a hand that does not win is collected"
)
LOSE_BUST = Rule("672a.7(q)(1)", "a hand over 21 loses to a dealer of 21 or less")
LOSE_LOWER = Rule("672a.7(q)(2)", "a hand loses when the dealer's total beats it without exceeding 21")
BUST_LOSES = Rule(
    "672a.7(q)(1); 672a.7(o)(1); 672a.7(n)(1)",
    "a hand over 21 loses whatever the dealer's total: (o)(1) pays only hands of 21 or less and "
    "(n)(1) returns only the remaining wagers",
)
COLLECT_THEN_PAY = Rule(
    "672a.7(r)(1)",
    "from the dealer's right, counterclockwise: every losing wager collected, then winners paid",
)
PLAYER_BY_PLAYER = Rule(
    "672a.7(r)(2)",
    "from the dealer's right, counterclockwise: each player's losses collected, then wins paid",
)
DISCARD_ORDER = Rule("672a.7(s)", "cards go to the discard rack in an order that reconstructs each hand")
DISCARD_COUNT = Rule(
    "672a.7(s); 672a.7(t)", "every card of the round reaches the discard rack; none is removed"
)

# -- rules from outside the seed section, each with its source -------------------------------------------
SIX_POSITIONS = Rule("672a.2", "at most six betting positions")
PUSH_22_NEEDS_BLACKJACK_WAGER = Rule(
    "672a.7(e)(1); 672a.2",
    "a Push 22 Wager is optional beside a Blackjack Wager; a box without one receives no cards",
)
INSURANCE_LIMIT = Rule(
    "house convention (672a.8 not found)",
    "an Insurance Wager is at most half the Blackjack Wager",
)
INSURANCE_LOSES = Rule(
    "672a.7(f); house convention (672a.8 not found)",
    "an Insurance Wager loses when the dealer has no Blackjack",
)
EVEN_MONEY = Rule(
    "672a.7(f); house convention (672a.8 not found)",
    "a player holding a Blackjack may take even money: paid 1 to 1 at once",
)
FREE_DOUBLE = Rule(
    PUBLISHED_RULES,
    "a free double on a two-card hard 9, 10 or 11, matched with a Free Bet lammer",
)
PAID_DOUBLE = Rule("configuration (672a.9 not found)", "paid doubles on two cards only if configured")
DOUBLE_AFTER_SPLIT = Rule(PUBLISHED_RULES, "free doubles are allowed after free splits")
FREE_SPLIT = Rule(
    PUBLISHED_RULES,
    "a free split of a pair of equal rank except ten-value cards, matched with a Free Bet lammer",
)
PAID_SPLIT = Rule("configuration (672a.10 not found)", "paid splits of other pairs only if configured")
RESPLIT_LIMIT = Rule(PUBLISHED_RULES, "resplits up to four hands, aces included")
NO_JOKERS = Rule("603a.15", "Free Bet Blackjack is dealt without jokers")
VOID = Rule("672a.7 (silent); decision 0008", "a voided round returns every wager not settled yet")
HELD = Rule(
    "672a.7 (silent); decision 0008",
    "an irregularity the section does not resolve holds the round until a supervisor resolves it",
)
