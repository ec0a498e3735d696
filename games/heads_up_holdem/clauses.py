"""The clauses of 58 Pa. Code § 677a.10 and the rules around them, as the Rule objects the round cites.

Every guard and every irregularity of a round names one of these rules, so a refusal says which
clause it enforces and games.conformance can list, clause by clause, the code that enforces it.
The betting rounds and pay tables come from outside the seed section (published Heads Up
Hold 'Em rules; chapter 677a's own text was not found) and say so.
"""

from __future__ import annotations

from games.common.records import wagers_replaced_reading
from vocabulary.rules import HOUSE_CONVENTION, PUBLISHED_RULES, Rule

SECTION = "677a.10"
GAME_ID = "heads-up-holdem"

#: Every lettered clause and sub-clause of § 677a.10, with the gist of its text.
CLAUSES: dict[str, str] = {
    "677a.10(a)": "Dealing from an automated dealing shoe observes (1) and (2)",
    "677a.10(a)(1)": "After the shuffle and cut (677a.5) the cards are placed in the shoe",
    "677a.10(a)(2)": "The dealer announces 'no more bets' before delivering any stack",
    "677a.10(b)": "Two-card stacks face down, clockwise, to each player with Ante and Odds, then the dealer",
    "677a.10(c)": "Stacks, then the stub out of the shoe; five community cards from the hand; stub racked",
    "677a.10(d)": "Without a counting shuffler, the stub is counted face down at least every 5 rounds",
    "677a.10(e)": "A count showing 52 cards: the stub goes to the discard rack unexposed",
    "677a.10(f)": "A wrong count: misdealt with 52 cards, void and return; else also remove the deck",
    "677a.10(g)": "A shoe that reshuffles automatically may dispense the five community cards first",
}

#: Where a clause allows two readings: the one taken, and why (docs/conformance.md, beside the clause).
READINGS: dict[str, str] = {
    "677a.10(a)(2)": wagers_replaced_reading(
        '"Prior to the dealer delivering any stacks of cards dispensed from the automated dealing '
        'shoe, the dealer shall announce \"no more bets.\""'
    ),
    "677a.10(c)": (
        'After the stacks "the dealer shall remove the remaining cards from the automated dealing shoe" '
        'and "deal from his hand the five community cards". The clause says who removes the stub and '
        "when, not how; the shoe lets it out through its reader into the tray, whence the dealer takes "
        "it into the hand: nothing is exposed, the stub stays whole for (d)-(f), and each community card "
        "dealt from the hand's top is the stub card the shoe sealed in that place (decision 0020)."
    ),
    "677a.10(d)": (
        '"If an automated card shuffling device, which counts the number of cards in the deck after the '
        'completion of each shuffle and indicates whether 52 cards are present, is not being used, the '
        'dealer shall count the stub at least once every 5 rounds of play". An automated dealing shoe '
        "that reshuffles the cards itself (g) keeps the stub, so the dealer never holds it to count: "
        "the shoe counts the deck as it reshuffles and says whether 52 are present, which is what the "
        "clause asks of a counting shuffler, and its count stands for the stub count. A round takes "
        'no "no more bets" from such a shoe without its count, its record carries the count (so the '
        "trail shows why no stub was counted), and a count other than 52 finds the deck wrong: with no "
        "round dealt from it to void, the deck is removed before betting opens and a new one put in "
        "play, as (f) removes a deck a count finds wrong without a misdeal."
    ),
    "677a.10(f)": (
        '"If the cards were misdealt but 52 cards remain in the deck, all hands shall be void and all '
        'wagers shall be returned to the players." The deck is kept only when both hold: misdealt and '
        "52 present. A misdeal with more or fewer than 52 (a card lost or added besides it) is a deck "
        "found wrong that the misdeal does not explain, and it is removed as when not misdealt: a sound "
        "deck removed costs a new deck, a wrong one kept is dealt again. "
        '"If the cards were not misdealt, all hands shall be void, all wagers shall be returned to the '
        'players and the entire deck of cards shall be removed from the table." The clause finds a deck '
        "wrong by the stub's count. A joker, or a card turned up twice in one round, says the deck is not "
        "one 52-card deck, or that the shoe or its host misread it, with no misdeal to explain it: the "
        "deck cannot be trusted either way. A supervisor's VOID of such a round (joker, duplicate-card) "
        "removes the deck from the table as (f) does, what the shoe still holds with it, and the table "
        "deals on only from a new deck: a sound deck removed costs a new deck, "
        "while a wrong one kept would go on being dealt from a shoe that reshuffles it."
    ),
}

# -- the section, clause by clause ---------------------------------------------------------------------
PROCEDURE_ORDER = Rule("677a.10", "each step of a round comes in the order the section lays down")
CARDS_IN_SHOE = Rule("677a.10(a)(1)", "the shuffled and cut cards are placed in the shoe before the deal")
NO_MORE_BETS = Rule("677a.10(a)(2)", "no stack is delivered before the dealer announces 'no more bets'")
WAGERS_REPLACED = Rule(
    "677a.10(a)(2)",
    "a position's wagers placed again before 'no more bets' replace its earlier ones, recorded withdrawn",
)
STACKS_IN_ORDER = Rule(
    "677a.10(b)", "a stack of two cards face down to each Ante and Odds position, clockwise, then the dealer"
)
STACK_OF_TWO = Rule("677a.10(b)", "each stack holds exactly two cards, face down")
COMMUNITY_FROM_HAND = Rule(
    "677a.10(c)",
    "after every stack the remaining cards are removed from the shoe, then the five community cards are "
    "dealt from the hand, each the top card of the stub (following 677a.9(a)(2), which it cites)",
)
COMMUNITY_FACE_DOWN = Rule("677a.10(c); 677a.10(g)", "community cards are dealt face down until revealed")
STUB_UNEXPOSED = Rule("677a.10(c)", "after the community cards the stub goes to the discard rack unexposed")
STUB_COUNT_DUE = Rule(
    "677a.10(d)", "without a counting shuffler the stub is counted face down at least once every 5 rounds"
)
COUNT_OF_52 = Rule("677a.10(e)", "a count showing 52 cards in the deck: the stub to the rack unexposed")
UNSEEN_OUT = Rule(
    "677a.10(e); docs/protocol.md §5.6",
    "cards that left the shoe unrecorded (while a dispense's outcome was unknown, or unread) go to the "
    "rack unseen and count as out of the deck",
)
WRONG_COUNT = Rule("677a.10(f)", "a count showing a wrong number of cards: the dealer determines a misdeal")
MISDEAL_VOIDS = Rule("677a.10(f)", "misdealt with 52 cards in the deck: all hands void, all wagers returned")
DECK_REMOVED = Rule(
    "677a.10(f)", "not misdealt: all hands void, all wagers returned, the entire deck removed from the table"
)
COMMUNITY_FIRST = Rule(
    "677a.10(g)", "the community cards may come first only from a shoe that reshuffles automatically"
)

# -- rules from outside the seed section, each with its source -------------------------------------------
POSITIONS = Rule(HOUSE_CONVENTION, "a betting position is one of the table's seats")
ANTE_EQUALS_ODDS = Rule(PUBLISHED_RULES, "the Ante and Odds Wagers are made together and are equal")
SIDE_WAGER_OFFERED = Rule(
    "configuration (no pay table found)",
    "Trips Plus and Pocket Bonus are taken only with a configured pay table",
)
SHUFFLER_COUNT = Rule(
    "677a.10(d); COMAR 36.05.03.27(C) (analog)",
    "a deck the counting shuffler counted wrong is removed and not dealt",
)
KEPT_STUB_COUNTED = Rule(
    "677a.10(d); 677a.10(g)", "a shoe that keeps its stub must count the deck, since the stub is not counted"
)
DECISION_ORDER = Rule(
    "663a.9(a), 679a.9(a) (analog: deal order)", "players decide in turn, clockwise from the dealer's left"
)
PLAY_PREFLOP = Rule(PUBLISHED_RULES, "before the flop a player may Play 3x the Ante or check")
PLAY_FLOP = Rule(PUBLISHED_RULES, "after the flop a player who has not played may Play 2x the Ante or check")
PLAY_RIVER = Rule(PUBLISHED_RULES, "after the river a player who has not played Plays 1x the Ante or folds")
ONE_PLAY = Rule(PUBLISHED_RULES, "a player makes one Play Wager in a round")
REVEAL_AFTER_DECISIONS = Rule(
    "published game rules (not PA text); 677a.10(g)",
    "community cards are revealed flop, then turn and river, after the decisions",
)
REVEAL_MATCHES = Rule(PUBLISHED_RULES, "a card turned up is the card dealt face down, unaltered")
ONE_DECK = Rule(PUBLISHED_RULES, "a round is dealt from one 52-card deck: no card turns up twice in it")
FOLDED_UNEXPOSED = Rule(HOUSE_CONVENTION, "a folded hand is collected without being turned up")
SHOWDOWN_COMPLETE = Rule(
    PUBLISHED_RULES, "wagers are settled once the dealer and every live hand are turned up"
)
DEALER_OPENS = Rule(PUBLISHED_RULES, "the dealer needs a pair or better to open; otherwise the Ante pushes")
ANTE_AND_PLAY = Rule(PUBLISHED_RULES, "Ante and Play pay 1 to 1 on a win, push on a tie, lose otherwise")
FOLD_FORFEITS = Rule(PUBLISHED_RULES, "a fold forfeits the Ante, Odds and any side wager")
ODDS_WIN = Rule(PUBLISHED_RULES, "a winning hand's Odds Wager pays by the pay table; lower hands push")
ODDS_LOSE = Rule(
    PUBLISHED_RULES, "a losing hand's Odds Wager is collected unless the losing-Odds table pays it"
)
TRIPS_PLUS = Rule(
    "configuration (no pay table found)", "Trips Plus pays on the player's hand by its pay table"
)
POCKET_BONUS = Rule(
    "configuration (no pay table found)",
    "Pocket Bonus pays on the player's two cards by its table; aces against the dealer's aces by their line",
)
SETTLEMENT_ORDER = Rule(
    HOUSE_CONVENTION, "settled from the dealer's right, counterclockwise, each player in turn"
)
COLLECT_COUNT = Rule(HOUSE_CONVENTION, "every card of the round reaches the discard rack")
NO_JOKERS = Rule("603a.15", "the game is dealt without jokers")
VOID = Rule("677a.10 (silent); decision 0008", "a voided round returns every wager")
HELD = Rule(
    "677a.10 (silent); decision 0008",
    "an irregularity the section does not resolve holds the round until a supervisor resolves it",
)
