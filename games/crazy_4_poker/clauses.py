"""The clauses of 58 Pa. Code § 657a.9 and the rules around them, as the Rule objects the round cites.

Every guard and every irregularity of a Crazy 4 Poker round dealt from the hand names one of these
rules, so a refusal says which clause it enforces and games.conformance can generate
docs/conformance.md from the code. Rules from outside the seed section cite the chapter's
definitions (657a.1) with the reading recorded in decision 0023, or their source (published game
rules, configurable where no Pennsylvania text was found).
"""

from __future__ import annotations

from games.common.records import wagers_replaced_reading
from vocabulary.rules import HOUSE_CONVENTION, PUBLISHED_RULES, Rule

SECTION = "657a.9"
GAME_ID = "crazy-4-poker"

#: Every lettered clause and sub-clause of § 657a.9, with the gist of its text.
#: Where a clause allows two readings: the one taken, and why (docs/conformance.md, beside the clause).
READINGS: dict[str, str] = {
    "657a.9(a)(3)": wagers_replaced_reading(
        '"Prior to dealing any cards, the dealer shall announce \"no more bets\""'
    ),
    "657a.9(f)": (
        '"If the cards were misdealt (a player or the dealer has more or less than 5 cards), but 52 '
        'cards remain in the deck, all hands shall be void and all wagers shall be returned to the '
        'players." The parenthesis says what misdealt means: a player or the dealer holding other '
        "than 5 cards. The Six Card Bonus card's area and an empty seat are neither, so a wrong "
        "number of cards there, every player and the dealer holding 5, is not misdealt, and the deck "
        "is removed. The clause keeps the deck only when the cards were misdealt and 52 remain; "
        "misdealt with more or fewer than 52 (a card lost or added besides the misdeal) is a deck "
        "found wrong that no misdeal explains, and it is removed too: a sound deck removed costs a "
        "new deck, a wrong one kept is dealt again. "
        '"If the cards were not misdealt, all hands shall be void, all wagers shall be returned to the '
        'players and the entire deck of cards shall be removed from the table." The clause finds a deck '
        "wrong by the stub's count. A shuffler's order holding a card twice says the deck is not one "
        "52-card deck (52 cards, one of them twice, pass every count) or that the shuffler misread it, "
        "with no misdeal to explain it: the deck cannot be trusted either way. The round holds "
        "(duplicate-card), and a supervisor's VOID removes the deck from the table as (f) does; the "
        "table deals on only from a new deck: a sound deck removed costs a new deck, while a wrong "
        "one kept would be shuffled and dealt again."
    ),
}

CLAUSES: dict[str, str] = {
    "657a.9(a)": "Requirements when the cards are dealt from the dealer's hand",
    "657a.9(a)(1)": "An automated shuffling device shuffles the cards",
    "657a.9(a)(2)": "The stacked deck is held in one chosen hand, used for the whole round",
    "657a.9(a)(3)": "No more bets; progressive lockout; chips counted against the system's count",
    "657a.9(b)": "Six Card Bonus card first, then one card at a time clockwise until each has five",
    "657a.9(c)": "After the deal the stub goes to the discard rack unexposed",
    "657a.9(d)": "Without a counting shuffler the stub is counted at least once every 5 rounds",
    "657a.9(e)": "A count showing 52 cards: the stub goes to the discard rack unexposed",
    "657a.9(f)": "A wrong count: void and return wagers; if not misdealt, remove the deck",
}

PROCEDURE_ORDER = Rule("657a.9", "each step of a round comes in the order the section lays down")
SHUFFLER_REQUIRED = Rule(
    "657a.9(a)(1)", "a table dealing from the hand opens only with an automated shuffler"
)
SHUFFLED_DECK = Rule("657a.9(a)(1)", "no card is dealt before the automated shuffler reports the shuffle")
ONE_HAND = Rule("657a.9(a)(2)", "the dealer holds the deck in the hand chosen for the round, all round")
HAND_CHOSEN = Rule("657a.9(a)(2)", "the dealer chooses the hand that holds the deck before dealing")
NO_MORE_BETS = Rule("657a.9(a)(3)", "no card is dealt before 'no more bets'; no wager is taken after it")
WAGERS_REPLACED = Rule(
    "657a.9(a)(3)",
    "a position's wagers placed again before 'no more bets' replace its earlier ones, recorded withdrawn",
)
PROGRESSIVE_LOCK = Rule(
    "657a.9(a)(3)", "the progressive system locks Progressive and Five Card Hand Bonus Wagers before the deal"
)
PROGRESSIVE_COUNT = Rule(
    "657a.9(a)(3)", "the value chips collected equal the Progressive Payout Wagers the system accepted"
)
PROGRESSIVE_REFUSED = Rule(
    "657a.9(a)(3); decision 0043",
    "a Progressive Payout Wager the system did not accept at the lock is not in action: its chip is "
    "returned, and it earns no award and no Envy Bonus",
)
SIX_CARD_FIRST = Rule("657a.9(b)", "with a Six Card Bonus Wager, one card face down to its area first")
DEAL_ORDER = Rule(
    "657a.9(b)", "one card at a time clockwise to each player with the required wagers and the dealer"
)
FIVE_EACH = Rule("657a.9(b)", "the deal ends when each player and the dealer have five cards")
STUB_TO_RACK = Rule("657a.9(c)", "after the deal the stub goes to the discard rack without exposing it")
STUB_COUNT_DUE = Rule(
    "657a.9(d)", "without a counting shuffler the stub is counted at least once every 5 rounds"
)
COUNTING_SHUFFLER = Rule("657a.9(d)", "a counting shuffler must indicate 52 cards before the deck is dealt")
STUB_COUNT_RIGHT = Rule("657a.9(e)", "a count showing 52 cards: the stub goes to the discard rack")
MISDEAL_VOID = Rule(
    "657a.9(f)", "a wrong count from a misdeal with 52 cards present: hands void, wagers returned"
)
DECK_REMOVED = Rule(
    "657a.9(f)", "a wrong count without a misdeal: hands void, wagers returned, the deck removed"
)
HANDS_COUNTED = Rule("657a.9(f)", "on a wrong count the dealer counts each hand's cards")

# -- rules from outside the seed section, each with its source -------------------------------------------
REQUIRED_WAGERS = Rule(
    "657a.9(b); 657a.7(d)(1) not found: published game rules (not PA text)",
    "the required wagers are an Ante and an equal Super Bonus Wager",
)
SIX_POSITIONS = Rule(HOUSE_CONVENTION, "at most six betting positions")
OPTIONAL_WAGER_OFFERED = Rule("657a.1", "an optional wager is taken only where the table offers it")
PLAY_OR_FOLD = Rule(PUBLISHED_RULES, "each player plays 1x to 3x the Ante, or folds")
RAISE_NEEDS_ACES = Rule(PUBLISHED_RULES, "a Play above 1x the Ante needs a pair of aces or better")
BEST_FOUR = Rule("657a.1; 657a.6", "each hand is the best four-card hand of its five cards")
DEALER_QUALIFIES = Rule(PUBLISHED_RULES, "the dealer qualifies with king high; otherwise the Ante pushes")
PLAY_SHOWDOWN = Rule(PUBLISHED_RULES, "Ante and Play are paid 1 to 1 when the hand beats the dealer's")
SUPER_BONUS = Rule(
    PUBLISHED_RULES,
    "Super Bonus pays by its table on a straight or better; below, it pushes unless the dealer "
    "qualifies and wins",
)
QUEENS_UP = Rule(PUBLISHED_RULES, "Queens Up pays by its table on a pair of queens or better")
FOLD_FORFEITS = Rule(PUBLISHED_RULES, "a player who folds loses the Ante and Super Bonus")
PROGRESSIVE_AWARD = Rule(
    "657a.1", "a Progressive Payout Wager wins the award its hand earns on the configured table"
)
FIVE_CARD_BONUS = Rule(
    "657a.1 (Five Card Hand Bonus Wager); decision 0023",
    "the Five Card Hand Bonus Wager is paid by its configured table on the player's five cards as a "
    "five-card poker hand, and collected below the table's lowest line",
)
SIX_CARD_BONUS = Rule(
    "657a.9(b); decision 0023",
    "reading: the Six Card Bonus Wager is paid by its configured table on the best five-card poker "
    "hand of the player's five cards and the Six Card Bonus card dealt under 657a.9(b) (the card "
    "dealt to its own area, common to every such wager), and collected below the lowest line",
)
ENVY_BONUS = Rule(
    "657a.1 (Four-Card Envy Bonus); decision 0023",
    "a Progressive Payout Wager is paid the configured fixed sum for each other player who holds a "
    "Four-Card Envy Bonus Qualifying Hand, never for the player's own hand or the dealer's; reading: "
    "a player who folded holds no hand",
)
HAND_KNOWN = Rule(
    "657a.9(a)(1); decision 0018 (dealt from the hand: the sealed order)",
    "a hand is known from the shuffler's sealed order and the deal order, or from the dealer's report",
)
ORDER_OPENS = Rule("657a.9(a)(1)", "the order revealed is the order the shuffler sealed before the deal")
DEALER_HAND_KNOWN = Rule(PUBLISHED_RULES, "no wager is settled before the dealer's hand is known")
ONE_DECK = Rule(PUBLISHED_RULES, "a round is dealt from one 52-card deck: no card is in it twice")
DISCARD_COUNT = Rule(
    "657a.9(c); house convention (657a.11 not found)", "every card on the layout reaches the discard rack"
)
LIVE_HAND_KNOWN = Rule(
    "657a.1 (Hand); decision 0023",
    "no wager is settled on a hand not yet known: each live (not folded) hand, each folded hand with a "
    "Queens Up, bonus or progressive wager, and the Six Card Bonus card; the settlement waits for the "
    "dealer's report",
)
VOID = Rule("657a.9(f); decision 0008", "a voided round returns every wager")
HELD = Rule(
    "657a.9 (silent); decision 0008",
    "an irregularity the section does not resolve holds the round until a supervisor resolves it",
)
