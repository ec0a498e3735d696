"""The product's simulated players (simulator.players): each game's strategy on chosen hands, seen
only through the player's own cards and the community cards turned up; the same seed gives the same
wagers and decisions; an unknown game is refused naming the known ones."""

from __future__ import annotations

import random
from collections.abc import Sequence

import pytest

from games import registry
from games.crazy_4_poker import RuleSet as Crazy4Rules
from games.crazy_4_poker.inputs import Fold, Play
from games.heads_up_holdem import RuleSet as HoldemRules
from games.heads_up_holdem.inputs import Choice, PlayerDecision
from games.heads_up_holdem.positions import Position as HoldemPosition
from games.heads_up_holdem.settlement import Stakes
from games.over_under.inputs import Choice as OverUnderChoice
from games.over_under.positions import Position as OverUnderPosition
from simulator.games.crazy_4_poker import play_multiple
from simulator.games.registry import simulation
from simulator.players import face_down, simulated_players
from vocabulary.cards import Card

GAMES = registry.slugs()


def cards(text: str) -> list[Card]:
    return [Card.parse(face) for face in text.split()]


def seated(game: str, hands: dict[int, str], seed: int = 1, **options: object) -> object:
    """``game``'s players, each seat seeing only the cards ``hands`` gives it."""
    look = {seat: cards(text) for seat, text in hands.items()}
    return simulated_players(game, random.Random(seed), look=look.__getitem__, **options)


def holdem(hole: str, street: str, community: str = "") -> PlayerDecision:
    players = seated("heads-up-holdem", {1: hole})
    return players.decide(HoldemPosition(Stakes(1, 500, 500)), street, cards(community))  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("hole", "raises"),
    [("7c 7d", True), ("Ah 2c", True), ("Ks Qd", True), ("Kc Jd", True), ("Qs Jd", False), ("9c 4h", False)],
)
def test_holdem_plays_the_largest_preflop_multiple_with_a_strong_start(hole: str, raises: bool) -> None:
    decision = holdem(hole, "preflop")
    most = max(HoldemRules().preflop_multiples)
    assert decision == (PlayerDecision(1, Choice.PLAY, most) if raises else PlayerDecision(1, Choice.CHECK))


def test_holdem_plays_2x_on_the_flop_with_a_pair_of_its_own_and_checks_a_board_pair() -> None:
    assert holdem("9c 4h", "flop", "9d 2s Jc") == PlayerDecision(1, Choice.PLAY, 2)
    assert holdem("9c 4h", "flop", "8d 8s Jc") == PlayerDecision(1, Choice.CHECK), "the board's pair"
    assert holdem("9c 4h", "flop", "Kd 2s Jc") == PlayerDecision(1, Choice.CHECK)


def test_holdem_at_the_river_plays_1x_with_a_pair_and_folds_with_nothing() -> None:
    assert holdem("9c 4h", "river", "9d 2s Jc Kh 6d") == PlayerDecision(1, Choice.PLAY, 1)
    assert holdem("9c 4h", "river", "Td 2s Jc Kh 6d") == PlayerDecision(1, Choice.FOLD)
    assert holdem("9c 4h", "river", "Td Ts Jc Kh 6d") == PlayerDecision(1, Choice.FOLD), "the board plays"


def test_holdem_plays_nothing_on_a_community_card_it_holds_itself() -> None:
    """A community card turned up that the player holds (a shoe or its host proved a card read before:
    the round holds on it once the hand is turned up, duplicate-card) is no hand to rank: the player
    checks, or folds at the river, as with a card astray, where its strategy raised a ValueError
    from the hand evaluator and ended the simulation."""
    assert holdem("9c 4h", "flop", "9c 2s Jc") == PlayerDecision(1, Choice.CHECK)
    assert holdem("9c 9h", "river", "9c 2s Jc 3d 4s") == PlayerDecision(1, Choice.FOLD)


def test_holdem_wagers_ante_and_equal_odds_and_trips_plus_only_where_offered() -> None:
    wagers = seated("heads-up-holdem", {}).wagers(1, 6)  # type: ignore[attr-defined]
    assert [w.seat for w in wagers] == [1, 2, 3, 4, 5, 6]
    assert all(w.ante == w.odds > 0 and w.trips_plus == 0 for w in wagers)
    offering = HoldemRules.from_mapping({"trips_plus_pay_table": {"three_of_a_kind": "3:1"}})
    many = seated("heads-up-holdem", {}, rules=offering).wagers(1, 60)  # type: ignore[attr-defined]
    assert any(w.trips_plus for w in many) and not all(w.trips_plus for w in many)


@pytest.mark.parametrize(
    ("hand", "multiple"),
    [
        ("Ac Ad 7h 4s 2c", 3),  # a pair of aces: 3x
        ("9c 9d 9h 4s 2c", 3),  # three of a kind beats aces
        ("Kc Qd 7h 4s 2c", 1),  # king-queen high
        ("Ac 9d 7h 4s 2c", 1),  # ace high
        ("5c 5d Kh 4s 2c", 1),  # a low pair
        ("Kc Jd 7h 4s 2c", 0),  # king-jack high: fold
        ("Qc Jd 7h 4s 2c", 0),
    ],
)
def test_crazy_4_plays_3x_with_aces_1x_with_king_queen_else_folds(hand: str, multiple: int) -> None:
    assert play_multiple(cards(hand)) == multiple
    decision = seated("crazy-4-poker", {2: hand}).decide(2)  # type: ignore[attr-defined]
    assert decision == (Play(2, multiple) if multiple else Fold(2))


def test_crazy_4_folds_a_hand_that_holds_a_card_twice() -> None:
    """A hand dealt from a deck holding a card twice (the round holds on the shuffler's order,
    duplicate-card) is no hand to rank: the player folds, where its strategy raised a ValueError from
    the hand evaluator and ended the simulation."""
    assert seated("crazy-4-poker", {2: "Ac Ac 7h 4s 2c"}).decide(2) == Fold(2)  # type: ignore[attr-defined]


def test_crazy_4_wagers_ante_and_equal_super_bonus_and_a_progressive_chip_on_the_sensor() -> None:
    covered: list[int] = []
    rules = Crazy4Rules.from_mapping(
        {"progressive_offered": True, "progressive_pay_table": {"straight": 2500}}
    )
    players = seated("crazy-4-poker", {}, rules=rules, cover=covered.append)
    wagers = players.wagers(1, 6)  # type: ignore[attr-defined]
    assert all(w.ante == w.super_bonus > 0 for w in wagers)
    assert covered == [w.seat for w in wagers if w.progressive], "a chip on each progressive seat's sensor"
    uncovered = seated("crazy-4-poker", {}, rules=rules).wagers(1, 60)  # type: ignore[attr-defined]
    assert not any(w.progressive for w in uncovered), "no sensor, no progressive wager"


def test_over_under_elects_by_the_first_card() -> None:
    players = simulated_players("over-under", random.Random(1))
    elect = [players.choose(OverUnderPosition(1, 500, cards=cards(c))) for c in ("9c", "Ah", "5d", "7s")]  # type: ignore[attr-defined]
    assert elect == [
        OverUnderChoice.OVER_23,
        OverUnderChoice.OVER_23,
        OverUnderChoice.UNDER_18,
        OverUnderChoice.SURRENDER,
    ]


def wagers_of(game: str, seed: int) -> Sequence[object]:
    options = {"look": lambda seat: []} if simulation(game).seated is face_down else {}
    players = simulated_players(game, random.Random(seed), **options)
    return [players.wagers(round_number, 6) for round_number in (1, 2, 3)]  # type: ignore[attr-defined]


@pytest.mark.parametrize("game", GAMES)
def test_the_same_seed_gives_the_same_players(game: str) -> None:
    assert wagers_of(game, 5) == wagers_of(game, 5)
    assert wagers_of(game, 5) != wagers_of(game, 6), "the stakes do come from the seed"


def test_an_unknown_game_is_refused_naming_the_known_ones() -> None:
    with pytest.raises(ValueError, match="baccarat") as refused:
        simulated_players("baccarat", random.Random(1))
    assert all(game in str(refused.value) for game in GAMES)
