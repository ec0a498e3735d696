"""The records of rounds the Hold 'Em machine deals lawfully satisfy the procedure auditor: what the
round accepts without a stub count, the trail shows why (677a.10(d), (g))."""

from __future__ import annotations

import pytest

from croupier.audit.procedure import judge
from croupier.audit.record import GENESIS, AuditRecord
from games.heads_up_holdem import RuleSet, Table
from games.heads_up_holdem.inputs import (
    Choice,
    Collect,
    DeckReport,
    NoMoreBets,
    PlaceWager,
    PlayerDecision,
    Settle,
    StubToRack,
)
from games.heads_up_holdem.machine import STUB
from games.heads_up_holdem.stacked import COMMUNITY_FIRST, StackedDeck, arrange

COUNTING_SHUFFLER = DeckReport(in_shoe=True, shuffler_count=52)


def five_rounds_sealed(deck: DeckReport) -> tuple[Table, list[AuditRecord]]:
    """Five rounds from ``deck``, the stub never counted by the dealer, their records sealed as the
    table's trail seals them."""
    table = Table(RuleSet.example(), verify=lambda sealed, card: True)
    trail: list[AuditRecord] = []
    for _ in range(5):
        faces = arrange(["Ah Kh"], "Qs Qd", "Jh Th 9s 3c 4d", community_first=deck.community_first)
        shoe = StackedDeck(faces)
        round_ = table.new_round()
        round_._verify = shoe.verify
        round_.handle(PlaceWager(1, 500, 500))
        round_.handle(NoMoreBets(deck))
        shoe.deliver(round_)
        if round_.state == STUB:
            assert not round_.stub_count_due
            round_.handle(StubToRack(None))
        round_.handle(PlayerDecision(1, Choice.CHECK))
        shoe.reveal_community(round_)
        round_.handle(PlayerDecision(1, Choice.CHECK))
        shoe.reveal_community(round_)
        round_.handle(PlayerDecision(1, Choice.FOLD))
        round_.handle(Settle())
        round_.handle(Collect(len(round_.pickup_order())))
        table.round_over(round_)
        for record in round_.records:
            fields = {"game": "heads-up-holdem", "round_seq": record.seq, **record.fields}
            prev = trail[-1].hash if trail else GENESIS
            at = "2026-12-02T00:00:00.000+00:00"
            trail.append(AuditRecord.seal(len(trail) + 1, at, str(record.kind), record.round, fields, prev))
    return table, trail


@pytest.mark.parametrize(
    "deck", [COUNTING_SHUFFLER, COMMUNITY_FIRST], ids=["counting-shuffler", "community-first"]
)
def test_677a_10_d_g_rounds_from_a_counted_deck_need_no_stub_count_in_the_trail_either(deck):
    """677a.10(d): the stub count is due "If an automated card shuffling device, which counts the
    number of cards in the deck after the completion of each shuffle and indicates whether 52 cards
    are present, is not being used"; under (g) the shoe keeps the stub and its own count stands for
    it. The round takes that count without a stub count, and its "no more bets" record carries it,
    so the auditor finds five such rounds lawful (before, the count was in no record and the fifth
    round was reported as breaking (d))."""
    table, trail = five_rounds_sealed(deck)
    assert table.rounds_since_stub_count == 0
    assert [(v.clause, v.round) for v in judge(trail).violations] == []
