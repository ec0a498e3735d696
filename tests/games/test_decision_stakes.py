"""What each game's ``decision`` records stake (games.registry.Game.staked): the wagers a round cut
off by a restart still has on the layout besides its ``wager`` records (croupier.service.journal)."""

from __future__ import annotations

from games import registry


def staked(game: str, fields: dict[str, object]) -> object:
    return registry.game(game).staked(fields)  # type: ignore[arg-type]  # plain record fields


def test_an_over_under_election_stakes_its_wager_and_a_surrender_none():
    """686a.7(g)(1)-(3): Over 23 and Under 18 are wagers equal to the Ante; a surrender places none."""
    assert staked("over-under", {"seat": 2, "choice": "under_18", "amount": 2500}) == ("under_18", None, 2500)
    assert staked("over-under", {"seat": 1, "choice": "surrender", "first_card": "6c"}) is None


def test_a_poker_play_stakes_the_play_wager_a_fold_or_check_none():
    assert staked("crazy-4-poker", {"seat": 1, "decision": "play", "play": 3000}) == ("play", None, 3000)
    assert staked("crazy-4-poker", {"seat": 1, "decision": "fold", "play": 0}) is None
    assert staked("heads-up-holdem", {"seat": 1, "choice": "play", "play": 2000, "street": "flop"}) == (
        "play",
        None,
        2000,
    )
    assert staked("heads-up-holdem", {"seat": 1, "choice": "check", "play": 0, "street": "preflop"}) is None


def test_a_paid_double_or_split_stakes_the_players_money_a_free_one_the_houses():
    """672a.7(h)(2): a paid double adds to its hand's Blackjack Wager, a paid split makes the new
    hand's; a free one is the house's lammer, no money of the player's."""
    double = {"seat": 3, "hand": 1, "action": "double_down", "stake": "paid", "amount": 2500}
    split = {"seat": 3, "hand": 0, "action": "split", "new_hand": 2, "stake": "paid", "amount": 2500}
    assert staked("free-bet-blackjack", double) == ("blackjack", 1, 2500)
    assert staked("free-bet-blackjack", split) == ("blackjack", 2, 2500)
    assert staked("free-bet-blackjack", {**double, "stake": "free"}) is None
    assert staked("free-bet-blackjack", {"seat": 1, "hand": 0, "action": "hit", "total": "16"}) is None
