"""The dealing shoe's own rules: batch, burn, cover card, collection and count (672a.7(a)-(d) and
the like clauses of each game dealt from a shoe, ShoeClauses).

Whatever game is dealt from it, a shoe must not deal before its burn card, must end after the round
in which its cover card came out, and must account for every card of its batch. ``Shoe`` holds
those rules as a transitions machine over a ShoeDriver.

The machine is synchronous (decision 0019: plain Machines, no AsyncMachine) and the device is
not, so each action that talks to the shoe runs in three steps, all under one lock:

1. a *request* trigger (``request_deal``, ``request_burn``...) that changes no state: its guards
   raise RuleViolation with their clause, before any command reaches the device;
2. the command;
3. an *outcome* trigger (``dealt``, ``burned``, ``cover_seen``...) that records what the device
   reports. Outcomes are never refused: once a card has moved, refusing to record it would lose it.

A latched fault is not a state: it is the latch (devices/faults.py), over whatever state the shoe is
in, so a jam in the middle of a round does not forget the round. ``faulted`` tells whether it holds.

Face-down cards stay sealed: the shoe hands out SealedCards (a reference and a commitment, no face)
and learns a face only when the card is turned up (``reveal``, 672a.7(k)).
"""

from __future__ import annotations

import asyncio
import collections
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import NoReturn

import structlog
from transitions import EventData

from devices.equipment import DEVICE_FAULT, IMPOSSIBLE_COUNT, IMPOSSIBLE_COUNT_CODE, Equipment
from devices.faults import Fault, FaultLatch
from drivers.errors import OutcomeUnknown
from drivers.protocol.classes.shoe import (
    DISPENSED_WRAPS,
    FAULT_OF_OUTCOME,
    CoverCardReached,
    DispenseOutcome,
    ShoeCounts,
)
from drivers.protocol.core import FaultCode
from drivers.shoe import Dispensed, ShoeDriver
from vocabulary.cards import Card, SealedCard
from vocabulary.machines import DeclaredMachine, Spec, Trigger
from vocabulary.rules import Rule, RuleViolation

# -- the rules, each with the clause or source it enforces ---------------------------------------------
# The rules a game's section lays down for its shoe are the table's (ShoeClauses, below); these serve
# every game alike, from an equipment standard, an analog or a decision.
BURN_UNEXPOSED = Rule("647a.1, 653a.1 (analog)", "a burn card goes to the discard rack without being exposed")
BATCH_COUNT = Rule(
    "COMAR 36.05.03.27(C) (analog); decision 0017",
    "a batch whose card count is wrong is out of play until a supervisor clears it",
)
COMMUNITY_FIRST = Rule(
    "677a.10(g)", "community cards may be dispensed first only from a shoe that reshuffles automatically"
)
MODE_BETWEEN_ROUNDS = Rule(
    "decision 0017 (analog)", "a shoe's shuffling mode is not changed while cards are in play"
)
RECONCILED = Rule(
    "docs/protocol.md §5.6",
    "the shoe's counts are read before dealing: after connecting and after an unknown outcome",
)


@dataclass(frozen=True)
class ShoeClauses:
    """The rules a shoe applies and records at one table, each citing that table's game: the same
    machine deals Free Bet Blackjack (672a.7), Over/Under (686a.7) and Heads Up Hold 'Em (677a.10),
    and a refusal, an irregularity or an equipment record (decision 0027) must name the clause of the
    game being dealt, never another game's. The table's assembly builds its shoe with its game's
    (the table class's ``shoe_clauses``); guards and records use these very instances, so a rule is
    recognised by identity (``rule is table.shoe_clauses.loaded``)."""

    loaded: Rule  # a shuffled batch placed in the shoe; nothing dealt from an empty one
    burn_first: Rule  # the batch's first card burned before any is dealt
    new_dealer_burns: Rule  # a new dealer burns one card before dealing
    no_burn_due: Rule  # a burn asked when none is owed
    round_first: Rule  # cards are dealt within a round, after the wagers
    one_round: Rule  # one round at a time
    cover_ends: Rule  # the shoe has ended: nothing more dealt from it
    cover_placement: Rule  # a cover card where it may be
    collect_and_count: Rule  # the ended shoe's cards collected to the rack and counted
    reshuffle: Rule  # the cards reshuffled before they are dealt again
    record_every_card: Rule  # every card recorded, so each hand can be reconstructed

    @classmethod
    def of_batch_game(cls, section: str, reconstruct: str) -> ShoeClauses:
        """The clauses of a game whose section deals a batch from a shoe as 672a.7 does, letter for
        letter: (a) the batch placed in the shoe, (c) the burn after each batch and for each new
        dealer, (d) the cover card ends the shoe, (d)(1) the remaining cards collected to the rack
        and counted, (d)(2) shuffled again, (e) the deal after the wagers. ``reconstruct``: the
        letter of its clause that keeps the cards so each hand can be reconstructed ("s" in
        672a.7, "n" in 686a.7)."""
        burn = f"{section}(c)"
        return cls(
            loaded=Rule(f"{section}(a)", "cards are dealt from a shoe in which a shuffled batch was placed"),
            burn_first=Rule(
                burn, "after a batch is placed in the shoe, its first card is burned before any is dealt"
            ),
            new_dealer_burns=Rule(
                burn, "each new dealer burns one card before dealing any cards to the players"
            ),
            no_burn_due=Rule(burn, "a card is burned after a batch is loaded and for each new dealer"),
            round_first=Rule(
                f"{section}(e)", "cards are dealt once the wagers of a round are placed: within a round"
            ),
            one_round=Rule(
                f"{section}(e), ({reconstruct})",
                "one round at a time: a round is completed before the next begins",
            ),
            cover_ends=Rule(
                f"{section}(d)", "after the cover card the round is completed and no new round is dealt"
            ),
            cover_placement=Rule(
                f"NJ 13:69F-2.5 (analog); {section}(c)-(d)",
                "one cover card, placed well inside the batch: never the burn card, never inside a stack",
            ),
            collect_and_count=Rule(
                f"{section}(d)(1)",
                "the cards remaining in the shoe are collected to the discard rack and counted so none "
                "is missing",
            ),
            reshuffle=Rule(
                f"{section}(d)(2)", "the collected cards are reshuffled before they are dealt again"
            ),
            record_every_card=Rule(
                f"{section}({reconstruct})",
                "every card is recorded so that each hand can be reconstructed in a dispute",
            ),
        )


#: Why a burn card is owed (672a.7(c)): the first card of a batch freshly placed in the shoe, and the
#: card each new dealer removes "also" before dealing any: a new dealer who takes over a fresh batch
#: whose burn is still due owes both, the batch's first.
BATCH_BURN = "batch"
NEW_DEALER_BURN = "new_dealer"

# -- states ---------------------------------------------------------------------------------------------
OFFLINE = "offline"  # the shoe's counts not read yet
EMPTY = "empty"  # no batch in the shoe
NEEDS_BURN = "needs_burn"  # a batch was loaded, or a new dealer came: burn the cards owed first
READY = "ready"  # burned; between rounds
IN_ROUND = "in_round"  # dealing a round
ENDING = "ending"  # the cover card came out: this round completes, then the shoe ends
COLLECTING = "collecting"  # the shoe has ended: collect the remaining cards and count the batch
STATES = [OFFLINE, EMPTY, NEEDS_BURN, READY, IN_ROUND, ENDING, COLLECTING]
DEALING = [IN_ROUND, ENDING]


class ShoeFault(RuntimeError):
    """A dispense ended in a fault the shoe latched (a jam, a misread, an empty shoe, a cover card
    out of place). Dealing stays blocked until a supervisor clears ``code``. ``read``: the cards of
    a stack the shoe read and recorded before the card it let out unread (they are in its tray)."""

    def __init__(
        self, shoe: str, code: FaultCode, detail: str, read: tuple[Card | SealedCard, ...] = ()
    ) -> None:
        super().__init__(f"{shoe}: {detail}: {code.name} latched until a supervisor clears it")
        self.code = code
        self.detail = detail
        self.read = read


@dataclass(frozen=True)
class CoverCard:
    """When the cover card came out: at the start of a round (no card dealt yet in it), during
    play, or at a new dealer's burn between rounds. Any of them ends the shoe (672a.7(d))."""

    when: str  # "round-start", "during-play" or "burn"
    dispensed: int  # the shoe's dispensed count at that moment


@dataclass(frozen=True)
class Burn:
    """One burn card gone to the discard rack, as the shoe knows it: why it was owed (BATCH_BURN or
    NEW_DEALER_BURN) and the shoe's counts after it. Never the card's face: a burn card is never
    turned up (BURN_UNEXPOSED)."""

    reason: str
    dispensed: int  # cards out of the shoe since the batch was loaded, this one included
    remaining: int  # cards left in the shoe
    # Counted from the shoe's counts (``Shoe.sync``): its answer was lost with the link, and the
    # card it let out is the burn (docs/protocol.md §5.6).
    reconciled: bool = False


def _refusals(trigger: str, guards: dict[str, str]) -> list[Spec]:
    """Transitions that exist only to refuse ``trigger`` in each state, by the guard named for it."""
    return [{"trigger": trigger, "source": s, "dest": None, "conditions": g} for s, g in guards.items()]


# Every guard is a method of Shoe that raises RuleViolation with its clause (decision 0030); a
# game-dependent one takes its rule from the shoe's ``clauses``, the table's game's (decision 0028).
_DISPENSE_REFUSALS = {OFFLINE: "_sync_first", EMPTY: "_no_batch", COLLECTING: "_shoe_ended"}
TRANSITIONS: list[Spec] = [
    # Reading the counts: the first time places the shoe; later it reconciles (docs/protocol.md §5.6).
    {
        "trigger": "synced",
        "source": OFFLINE,
        "dest": EMPTY,
        "conditions": "_holds_no_cards",
        "after": "_on_synced",
    },
    {
        "trigger": "synced",
        "source": OFFLINE,
        "dest": NEEDS_BURN,
        "conditions": "burns",
        "after": "_on_synced",
    },
    {"trigger": "synced", "source": OFFLINE, "dest": READY, "after": "_on_synced"},
    {
        "trigger": "synced",
        "source": [s for s in STATES if s != OFFLINE],
        "dest": None,
        "after": "_on_synced",
    },
    # A batch goes into an empty shoe only (672a.7(a), (d)(1)-(2)), and is burned before dealing.
    {"trigger": "request_load", "source": EMPTY, "dest": None},
    *_refusals(
        "request_load",
        {
            OFFLINE: "_sync_first",
            COLLECTING: "_last_shoe_uncounted",
            **dict.fromkeys([NEEDS_BURN, READY, IN_ROUND, ENDING], "_batch_in_play"),
        },
    ),
    {
        "trigger": "loaded",
        "source": EMPTY,
        "dest": NEEDS_BURN,
        "conditions": "burns",
        "after": "_on_loaded",
    },
    # A game with no burn card (677a.10: the deck dealt holds all 52 cards) deals at once.
    {"trigger": "loaded", "source": EMPTY, "dest": READY, "after": "_on_loaded"},
    # The burn (672a.7(c)).
    {
        "trigger": "request_burn",
        "source": NEEDS_BURN,
        "dest": None,
        "conditions": ["_not_latched", "_counts_known"],
    },
    *_refusals(
        "request_burn",
        {**_DISPENSE_REFUSALS, **dict.fromkeys([READY, IN_ROUND, ENDING], "_no_burn_due")},
    ),
    # A batch's burn and a new dealer's are owed together: the shoe is ready after the last.
    {
        "trigger": "burned",
        "source": NEEDS_BURN,
        "dest": None,
        "conditions": "owes_another_burn",
        "after": "_on_burned",
    },
    {"trigger": "burned", "source": NEEDS_BURN, "dest": READY, "after": "_on_burned"},
    {
        "trigger": "dealer_change",
        "source": READY,
        "dest": NEEDS_BURN,
        "conditions": "burns",
        "after": "_on_dealer_change",
    },
    {"trigger": "dealer_change", "source": READY, "dest": None},
    # Between shoes, or with a burn already owed: the new dealer's card is owed as well.
    {
        "trigger": "dealer_change",
        "source": [OFFLINE, EMPTY, NEEDS_BURN, COLLECTING],
        "dest": None,
        "after": "_on_dealer_change",
    },
    *_refusals(
        "dealer_change",
        dict.fromkeys(DEALING, "_dealer_change_mid_round"),
    ),
    # Rounds.
    {
        "trigger": "start_round",
        "source": READY,
        "dest": IN_ROUND,
        "conditions": "_not_latched",
        "after": "_on_round",
    },
    *_refusals(
        "start_round",
        {
            **_DISPENSE_REFUSALS,
            NEEDS_BURN: "_burn_before_round",
            **dict.fromkeys(DEALING, "_round_on"),
        },
    ),
    {"trigger": "request_end_round", "source": DEALING, "dest": None},
    *_refusals(
        "request_end_round",
        dict.fromkeys([OFFLINE, EMPTY, NEEDS_BURN, READY, COLLECTING], "_no_round"),
    ),
    {"trigger": "round_ended", "source": IN_ROUND, "dest": READY, "after": "_on_round_ended"},
    {"trigger": "round_ended", "source": ENDING, "dest": COLLECTING, "after": "_on_round_ended"},
    # Dealing.
    {
        "trigger": "request_deal",
        "source": DEALING,
        "dest": None,
        "conditions": ["_not_latched", "_counts_known"],
    },
    *_refusals(
        "request_deal",
        {**_DISPENSE_REFUSALS, NEEDS_BURN: "_burn_before_deal", READY: "_round_before_deal"},
    ),
    {"trigger": "dealt", "source": DEALING, "dest": None, "after": "_on_dealt"},
    # The cover card (672a.7(d)): the round completes, then the shoe ends; at a burn it ends at once.
    {"trigger": "cover_seen", "source": IN_ROUND, "dest": ENDING, "after": "_on_cover"},
    {"trigger": "cover_seen", "source": NEEDS_BURN, "dest": COLLECTING, "after": "_on_cover"},
    {"trigger": "cover_seen", "source": ENDING, "dest": None, "after": "_on_second_cover"},
    # Ending a shoe before its cover card (the table closes, the batch is changed).
    {"trigger": "close_shoe", "source": [NEEDS_BURN, READY], "dest": COLLECTING},
    {"trigger": "close_shoe", "source": COLLECTING, "dest": None},
    *_refusals(
        "close_shoe", {OFFLINE: "_sync_first", EMPTY: "_no_batch", **dict.fromkeys(DEALING, "_round_on")}
    ),
    # Collection and count (672a.7(d)(1)).
    {
        "trigger": "collected",
        "source": COLLECTING,
        "dest": EMPTY,
        "conditions": "_cards_removed",
        "after": "_on_collected",
    },
    *_refusals(
        "collected",
        {
            OFFLINE: "_sync_first",
            **dict.fromkeys([EMPTY, NEEDS_BURN, READY], "_shoe_not_ended"),
            **dict.fromkeys(DEALING, "_round_before_collection"),
        },
    ),
    # Mode (677a.10(g)).
    {
        "trigger": "request_set_mode",
        "source": [EMPTY, NEEDS_BURN, READY],
        "dest": None,
        "conditions": "_community_first_with_reshuffle",
    },
    *_refusals(
        "request_set_mode",
        {OFFLINE: "_sync_first", **dict.fromkeys([IN_ROUND, ENDING, COLLECTING], "_cards_in_play")},
    ),
]


class Shoe(Equipment[ShoeDriver]):
    """An automated dealing shoe under its game's rules (ShoeClauses: 672a.7(a)-(e), 686a.7(a)-(e),
    677a.10) and the mode of 677a.10(g).

    Feed it the driver's events with ``apply``. Read ``state``, ``irregularities`` and ``latch``.
    """

    state: str  # kept by the machine
    burns: bool  # the game burns a card after each batch is loaded (a condition of the machine's)
    # The machine's triggers, which it binds (vocabulary/machines.py; decision 0030).
    synced: Trigger
    request_load: Trigger
    loaded: Trigger
    request_burn: Trigger
    burned: Trigger
    dealer_change: Trigger
    start_round: Trigger
    request_end_round: Trigger
    round_ended: Trigger
    request_deal: Trigger
    dealt: Trigger
    cover_seen: Trigger
    close_shoe: Trigger
    collected: Trigger
    request_set_mode: Trigger
    may_trigger: Trigger

    def __init__(
        self, driver: ShoeDriver, latch: FaultLatch | None = None, *, clauses: ShoeClauses, burns: bool = True
    ) -> None:
        """``clauses``: the rules of the game dealt at this table, as its sections cite them (each
        table class's ``shoe_clauses``). ``burns``: a card is burned after each batch is loaded
        (672a.7(c), 686a.7(c)); False for a game whose deck is dealt whole (677a.10)."""
        super().__init__(driver, latch)
        self.clauses = clauses
        self.burns = burns
        self.batch_size: int | None = None  # cards the batch must hold, the cover card not counted
        self.batch: str | None = None  # the batch in the shoe by its back colour, where the table said
        self.dispensed = 0  # the device's count of cards out since the load
        self.remaining = 0  # the device's count of cards left
        # Cards of this batch out of the shoe whose value is not in the record: misread, or out
        # while a dispense's outcome was unknown (672a.7(s)).
        self.unrecorded = 0
        self.auto_reshuffle = False
        self.community_first = False
        self.unreconciled = False  # a dispense's outcome is unknown until the counts are read
        self.excess = 0  # cards the shoe counts above its batch, latched as IMPOSSIBLE_COUNT once found
        self.burn_cards: list[SealedCard] = []  # this batch's burn cards: never revealed
        self.last_burn: Burn | None = None  # the burn made last, for the table's record of it
        self._batch_burn_due = False  # the batch in the shoe has not had its first card burned
        self._new_dealer_burn_due = False  # the dealer on duty came to the table and has not burned
        self.round_cards: list[Card | SealedCard] = []  # dealt in the current (or last) round
        self.cover: CoverCard | None = None
        # Face-down cards dealt, by reference, and the faces the shoe proved for those turned up, by
        # card: a reference names a card only until the batch is reloaded or, when the shoe reshuffles,
        # the round ends (docs/protocol.md), and after 65,535 the references start again at 1, so a
        # face is kept for the card it opens, never for the reference alone (``_forget_sealed``).
        self._sealed: dict[int, SealedCard] = {}
        self._revealed: dict[SealedCard, Card] = {}
        # Covers seen, by dispensed count, through replies and through events: a cover counts once
        # however many of the two paths report it, and in whichever order they arrive.
        self._covers: tuple[collections.Counter[int], collections.Counter[int]] = (
            collections.Counter(),
            collections.Counter(),
        )
        # A cover card event heard before the counts were first read, by its dispensed count: it
        # cannot be judged stale or not until they are (``sync``).
        self._cover_told_offline: int | None = None
        self._busy = asyncio.Lock()
        self.log = structlog.get_logger("croupier.shoe").bind(device=self.name)
        self.machine = DeclaredMachine(
            model=self,
            model_override=True,
            states=STATES,
            transitions=TRANSITIONS,
            initial=OFFLINE,
            auto_transitions=False,
            send_event=True,
        )

    @property
    def burns_owed(self) -> tuple[str, ...]:
        """The burns owed before any card is dealt, in the order they are made (672a.7(c)): the
        batch's first card, then the new dealer's."""
        owed = (BATCH_BURN,) if self._batch_burn_due else ()
        return owed + ((NEW_DEALER_BURN,) if self._new_dealer_burn_due else ())

    def owes_another_burn(self, event: EventData) -> bool:
        """Whether a burn is still owed after the one just made (a new dealer on a fresh batch)."""
        return len(self.burns_owed) > 1

    @property
    def faulted(self) -> bool:
        """Whether a latched fault blocks dealing (over any state)."""
        return bool(self.latch)

    # -- actions that talk to the shoe --------------------------------------------------------------------
    async def sync(self) -> ShoeCounts:
        """Read the shoe's counts: the first time this places the shoe (empty, or holding a batch
        that must be burned); after an unknown outcome it reconciles the books (docs/protocol.md §5.6).

        A burn whose outcome was unknown and whose card left the shoe was made: a burn card is never
        seen, so the card that left is the burn owed (672a.7(c): "remove the first card", one card
        for each new dealer), counted as it here (``last_burn``). Asking for another would take two
        cards for one burn; a burn that never ran is still owed. A shoe ended since (``close_shoe``)
        owes no burn: the card is one unrecorded. (While a burn is owed the only dispense the shoe
        takes is a burn, so an unknown outcome there is a burn's.)"""
        async with self._busy:
            counts = await self.driver.counts()
            burn_ran = self.unreconciled and self.state == NEEDS_BURN and counts.dispensed != self.dispensed
            self.synced(counts=counts, burn_ran=burn_ran)
            if burn_ran:
                self.log.warning("a burn whose outcome was unknown was made: its card left the shoe")
                self.burned(cards=(), reconciled=True)
            told, self._cover_told_offline = self._cover_told_offline, None
            if told is not None and self.state != EMPTY:  # emptied: the batch it ended is gone
                self._judge_cover_event(told)
            return counts

    def resumed(self, expected: int) -> None:
        """The batch found in the shoe at the start (``sync`` placed it) is the one the table loaded,
        of ``expected`` cards (cover card not counted): its count in the shoe (for a reshuffling
        shoe, what it holds between rounds) is checked against that, as a load is, a count other
        than it latching WRONG_COUNT, and every later count of the batch is made against it. Until
        then the shoe's own count stood for the batch, so a card lost before a restart passed every
        count after it."""
        held = self.remaining if self.auto_reshuffle else self.dispensed + self.remaining
        self.batch_size, self.excess = expected, max(0, held - expected)
        wrong = f"the batch found in the shoe at the start holds {held} cards, not {expected}"
        self._batch_counted("batch_resumed", held, expected, wrong)

    async def load(self, expected: int, batch: str | None = None) -> ShoeCounts:
        """A shuffled batch of ``expected`` cards (cover card not counted) was placed in the shoe by
        the dealer or a shuffler (672a.7(a)); ``batch`` names it by its back colour where the table
        alternates batches, for the audit trail. A shoe that counts otherwise latches WRONG_COUNT."""
        if expected < 1:
            raise ValueError(f"a batch holds at least one card, not {expected}")
        async with self._busy:
            self.request_load()
            counts = await self.driver.batch_loaded()
            self.batch = batch
            self.loaded(counts=counts, expected=expected)
            return counts

    async def burn(self) -> SealedCard | None:
        """Burn the next card owed (``burns_owed``) to the discard rack, face down and never revealed
        (672a.7(c)); ``last_burn`` says why and the counts after it. The shoe stays NEEDS_BURN
        while another is owed.

        Returns None when the cover card came out instead (at a new dealer's burn): the shoe then
        ends at once and its cards are collected (672a.7(d)); that dealer's burn is still owed after
        the next batch's.
        """
        async with self._busy:
            result = await self._dispense(self.request_burn, lambda: self.driver.dispense(face_up=False))
            if result.outcome is DispenseOutcome.COVER_CARD:
                self._cover_out(result.dispensed, by_reply=True)
                return None
            if result.cards or result.unread:
                self.burned(cards=result.cards)
            self._raise_if_failed(result)
            card = result.cards[0]
            assert isinstance(card, SealedCard)
            return card

    async def deal(self, *, face_up: bool) -> Card | SealedCard:
        """Deal the next card: its face when face up, a SealedCard when face down.

        A cover card that comes out first is set aside, the shoe is marked to end after this round
        (672a.7(d)), and the next card is dealt in its place.
        """
        async with self._busy:
            while True:
                result = await self._dispense(
                    self.request_deal, lambda: self.driver.dispense(face_up=face_up)
                )
                if result.outcome is not DispenseOutcome.COVER_CARD:
                    break
                self._cover_out(result.dispensed, by_reply=True)
            self._record_dealt(result)
            return result.cards[0]

    async def deal_stack(self, count: int) -> tuple[SealedCard, ...]:
        """Deal ``count`` cards as one face-down stack (677a.10(b): stacks of two; 677a.10(g): the
        community cards first, from a shoe that reshuffles automatically)."""
        async with self._busy:
            result = await self._dispense(self.request_deal, lambda: self.driver.dispense_stack(count))
            self._record_dealt(result)
            return tuple(card for card in result.cards if isinstance(card, SealedCard))

    async def reveal(self, card: SealedCard) -> Card:
        """The face of a face-down card being turned up (672a.7(k)), proven against its commitment."""
        if card in self.burn_cards:
            raise RuleViolation(BURN_UNEXPOSED, f"{card} is a burn card")
        if self._sealed.get(card.reference) != card:
            raise ValueError(f"{card} is not a face-down card dealt by {self.name} from this batch")
        face = self._revealed.get(card)
        if face is None:
            face = await self.driver.reveal(card)
            self._revealed[card] = face
            self.log.info("card turned up", reference=card.reference, card=str(face))
        return face

    def opens(self, card: SealedCard, face: Card) -> bool:
        """Whether ``face`` is the face ``reveal`` proved for ``card``, a face-down card of this batch.

        Synchronous, for a game round's ``verify`` callback (672a.7(k)): the commitment itself was
        checked by the driver when the card was turned up; a face never revealed opens nothing."""
        return self._sealed.get(card.reference) == card and self._revealed.get(card) == face

    async def end_round(self) -> None:
        """The round is complete. A shoe that reshuffles automatically takes the round's discards back
        and shuffles them in; after the cover card the shoe ends (672a.7(d))."""
        async with self._busy:
            self.request_end_round()
            counts = None
            if self.auto_reshuffle and self.state == IN_ROUND:
                counts = await self.driver.end_round()
            self.round_ended(counts=counts)

    async def reconcile_end_round(self) -> None:
        """The end of a round whose answer was lost (EndRound moves cards: never resent on a
        guess), once the shoe is back and cleared: its counts say whether the discards went back
        (the whole batch in the shoe), and the round ends with them; if not, the shoe is asked to
        take them back now (from a rack already emptied it takes nothing twice)."""
        async with self._busy:
            counts = await self.driver.counts()
            if counts.remaining != self.batch_size:
                counts = await self.driver.end_round()
            self.round_ended(counts=counts)

    async def collect(self, counted: int) -> None:
        """The shoe has ended: its remaining cards were removed to the discard rack and the batch
        counted there, ``counted`` cards (672a.7(d)(1)). A count other than the batch's latches
        WRONG_COUNT, which only a supervisor clears; the shoe is empty either way."""
        if counted < 0:
            raise ValueError(f"a count of cards cannot be negative: {counted}")
        async with self._busy:
            counts = await self.driver.counts()
            self._check_counts(counts.dispensed, counts.remaining)
            self.collected(counts=counts, counted=counted)

    async def set_mode(self, *, auto_reshuffle: bool, community_first: bool = False) -> None:
        """Reshuffle automatically after each round; optionally dispense community cards first
        (677a.10(g), only with automatic reshuffling)."""
        async with self._busy:
            self.request_set_mode(auto_reshuffle=auto_reshuffle, community_first=community_first)
            counts = await self.driver.set_mode(
                auto_reshuffle=auto_reshuffle, community_first=community_first
            )
            self._read_mode(counts)

    def apply(self, event: object) -> None:
        super().apply(event)
        if isinstance(event, CoverCardReached):
            if self.state == OFFLINE:
                # Told before the counts are read (to a service started since the cover card came
                # out, its answer lost with the link): judged once ``sync`` has read them.
                self._cover_told_offline = event.dispensed
            else:
                self._judge_cover_event(event.dispensed)

    def _judge_cover_event(self, dispensed: int) -> None:
        """A cover leaves the dispensed count as it was: an event at another count is stale (from a
        batch already collected) and must not end the shoe now in play."""
        if dispensed == self.dispensed:
            self._cover_out(dispensed, by_reply=False)
        else:
            self.log.info("stale cover card event ignored", at=dispensed, now=self.dispensed)

    # -- shared steps ---------------------------------------------------------------------------------------
    async def _dispense(self, request: Trigger, io: Callable[[], Awaitable[Dispensed]]) -> Dispensed:
        """Check the rules (``request``, a request trigger), dispense, and keep the device's counts. An
        unknown outcome leaves the books unreconciled: nothing more is dealt until ``sync`` has read
        the counts."""
        request()
        try:
            result = await io()
        except OutcomeUnknown:
            self.unreconciled = True
            raise
        self.dispensed, self.remaining = result.dispensed, result.remaining
        self.unrecorded += result.unread
        self._check_counts(result.dispensed, result.remaining)
        return result

    def _record_dealt(self, result: Dispensed) -> None:
        if result.cards or result.unread:
            self.dealt(cards=result.cards)
        self._raise_if_failed(result)

    def _raise_if_failed(self, result: Dispensed) -> None:
        """Latch the fault a failed dispense reports (the device latched it too, and its FaultRaised
        event will find it latched), record the irregularity, and raise ShoeFault."""
        code = FAULT_OF_OUTCOME.get(result.outcome)
        if code is None:
            return
        detail = _FAILURE[result.outcome]
        self.latch.latch(Fault(code.name, detail, DEVICE_FAULT.clause, "device"))
        if result.outcome is DispenseOutcome.MISREAD:
            self._irregular(
                self.clauses.record_every_card, "a card left the shoe unread: its value is not in the record"
            )
        elif result.outcome is DispenseOutcome.COVER_CARD_MISPLACED:
            self._irregular(
                self.clauses.cover_placement, "the cover card came out as the burn card or inside a stack"
            )
        self._fail(code, detail, result.cards)

    def _fail(self, code: FaultCode, detail: str, read: tuple[Card | SealedCard, ...] = ()) -> NoReturn:
        self.log.warning("shoe fault", fault=code.name, detail=detail)
        raise ShoeFault(self.name, code, detail, read)

    def _cover_out(self, dispensed: int, *, by_reply: bool) -> None:
        """A cover card came out, reported by a reply or by an event; each cover counts once."""
        replies, events = self._covers
        before = max(replies[dispensed], events[dispensed])
        (replies if by_reply else events)[dispensed] += 1
        if max(replies[dispensed], events[dispensed]) == before:
            return  # the other path already reported this one
        if not self.may_trigger("cover_seen"):
            self._irregular(
                self.clauses.cover_placement, f"a cover card came out while the shoe was {self.state}"
            )
            return
        self.cover_seen(dispensed=dispensed)

    def _irregular(self, rule: Rule, detail: str) -> None:
        self.irregular(rule, detail)
        self.log.warning("irregularity", clause=rule.clause, detail=detail)

    def _latch_count(self, rule: Rule, detail: str) -> None:
        """A wrong card count: latched on the host (the device did not count it), supervisor clears."""
        self.latch.latch(Fault(FaultCode.WRONG_COUNT.name, detail, rule.clause, "host"))
        self._irregular(rule, detail)

    def _check_counts(self, dispensed: int, remaining: int) -> None:
        """Cards never appear inside a shoe: what it reports out and left (left alone for a shoe that
        reshuffles automatically, whose dispensed count runs on) is at most its batch. More is a count
        that cannot be, latched at once (IMPOSSIBLE_COUNT); a supervisor's clear accepts the excess
        found, and only a larger one latches again within the batch. An empty shoe has no batch to
        count against: its dispensed count is still the last batch's until the next load."""
        if self.batch_size is None or self.state in (OFFLINE, EMPTY):
            return
        held = remaining if self.auto_reshuffle else dispensed + remaining
        excess = held - self.batch_size
        if excess > self.excess:
            self.excess = excess
            detail = (
                f"the shoe counts {dispensed} card(s) out and {remaining} left: {excess} more than "
                f"its batch of {self.batch_size}"
            )
            self.latch.latch(Fault(IMPOSSIBLE_COUNT_CODE, detail, IMPOSSIBLE_COUNT.clause, "host"))
            self.log.warning("impossible count", detail=detail, clause=IMPOSSIBLE_COUNT.clause)

    def _read_mode(self, counts: ShoeCounts) -> None:
        self.auto_reshuffle, self.community_first = counts.auto_reshuffle, counts.community_first

    # -- guards (each raises the RuleViolation of its clause, or lets the trigger through) -------------
    def _not_latched(self, event: EventData) -> bool:
        """LATCH_BLOCKS, as the latch itself words it (devices/faults.py)."""
        self.latch.require_clear(event.event.name.removeprefix("request_"))
        return True

    def _counts_known(self, event: EventData) -> bool:
        if self.unreconciled:
            raise RuleViolation(RECONCILED, "a dispense's outcome is unknown: sync the counts first")
        return True

    def _cards_removed(self, event: EventData) -> bool:
        if remaining := event.kwargs["counts"].remaining:
            raise RuleViolation(
                self.clauses.collect_and_count,
                f"{remaining} card(s) still in the shoe: remove them to the discard rack, then count",
            )
        return True

    def _community_first_with_reshuffle(self, event: EventData) -> bool:
        if event.kwargs["community_first"] and not event.kwargs["auto_reshuffle"]:
            raise RuleViolation(
                COMMUNITY_FIRST, "community cards first asked of a shoe that does not reshuffle automatically"
            )
        return True

    def _holds_no_cards(self, event: EventData) -> bool:
        """Not a guard: the counts read say the shoe is empty."""
        return bool(event.kwargs["counts"].remaining == 0)

    # -- refusals: the guard of a trigger its rule forbids outright in the states it is listed for ----------
    def _sync_first(self, event: EventData) -> bool:
        raise RuleViolation(RECONCILED, "the shoe's counts have not been read: sync first")

    def _no_batch(self, event: EventData) -> bool:
        raise RuleViolation(self.clauses.loaded, "no batch in the shoe")

    def _shoe_ended(self, event: EventData) -> bool:
        raise RuleViolation(self.clauses.cover_ends, "this shoe has ended: collect and count its cards")

    def _round_on(self, event: EventData) -> bool:
        raise RuleViolation(self.clauses.one_round, "a round is in progress: complete it first")

    def _no_round(self, event: EventData) -> bool:
        raise RuleViolation(self.clauses.one_round, "no round in progress")

    def _last_shoe_uncounted(self, event: EventData) -> bool:
        raise RuleViolation(
            self.clauses.collect_and_count, "collect and count the cards of the last shoe first"
        )

    def _batch_in_play(self, event: EventData) -> bool:
        raise RuleViolation(
            self.clauses.reshuffle, "the shoe holds a batch in play: close it, collect and count first"
        )

    def _no_burn_due(self, event: EventData) -> bool:
        raise RuleViolation(self.clauses.no_burn_due, "no burn is due")

    def _dealer_change_mid_round(self, event: EventData) -> bool:
        raise RuleViolation(
            self.clauses.new_dealer_burns, "a new dealer takes over between rounds, then burns"
        )

    def _burn_before_round(self, event: EventData) -> bool:
        raise RuleViolation(self.clauses.burn_first, "burn a card before dealing a round")

    def _burn_before_deal(self, event: EventData) -> bool:
        raise RuleViolation(self.clauses.burn_first, "no card may be dealt before the burn card")

    def _round_before_deal(self, event: EventData) -> bool:
        raise RuleViolation(self.clauses.round_first, "start a round before dealing")

    def _shoe_not_ended(self, event: EventData) -> bool:
        raise RuleViolation(self.clauses.collect_and_count, "the shoe has not ended: nothing to collect")

    def _round_before_collection(self, event: EventData) -> bool:
        raise RuleViolation(self.clauses.cover_ends, "the round is completed before the cards are collected")

    def _cards_in_play(self, event: EventData) -> bool:
        raise RuleViolation(MODE_BETWEEN_ROUNDS, "cards are in play")

    # -- records (after callbacks: they only record) ---------------------------------------------------------
    def _on_synced(self, event: EventData) -> None:
        counts: ShoeCounts = event.kwargs["counts"]
        assert event.transition is not None, "an after callback runs with its transition"
        if event.transition.source == OFFLINE:
            # Cards never vanish inside the shoe: dispensed + remaining is the batch as loaded. An
            # auto-reshuffling shoe's dispensed count runs on across its reshuffles, and between
            # rounds every card is back in it: what remains is the batch.
            whole = counts.remaining if counts.auto_reshuffle else counts.dispensed + counts.remaining
            self.batch_size, self.excess = whole or None, 0
        else:
            unseen = (counts.dispensed - self.dispensed) % DISPENSED_WRAPS
            if event.kwargs["burn_ran"]:
                unseen -= 1  # the burn's own card, which ``sync`` counts as the burn made
            if unseen:
                self.unrecorded += unseen
                self._irregular(
                    self.clauses.record_every_card,
                    f"{unseen} card(s) left the shoe while the outcome was unknown: not recorded",
                )
        self.dispensed, self.remaining = counts.dispensed, counts.remaining
        self.unreconciled = False
        if event.transition.source == OFFLINE and event.transition.dest == NEEDS_BURN:
            self._batch_burn_due = True  # a batch found in the shoe: burned as a freshly placed one
        self._read_mode(counts)
        self._check_counts(counts.dispensed, counts.remaining)
        self.log.info("shoe synced", state=self.state, dispensed=counts.dispensed, remaining=counts.remaining)

    def _on_loaded(self, event: EventData) -> None:
        counts: ShoeCounts = event.kwargs["counts"]
        expected: int = event.kwargs["expected"]
        self.batch_size = expected
        self.dispensed, self.remaining, self.unrecorded = counts.dispensed, counts.remaining, 0
        self.excess = 0
        self.burn_cards, self.round_cards, self.cover = [], [], None
        self._batch_burn_due = self.state == NEEDS_BURN
        self._forget_sealed()
        for seen in self._covers:
            seen.clear()
        self._read_mode(counts)
        self.log.info("batch loaded", cards=counts.remaining, expected=expected)
        wrong = f"the shoe counts {counts.remaining} cards, the batch has {expected}"
        self._batch_counted("batch_loaded", counts.remaining, expected, wrong)

    def _batch_counted(self, kind: str, counted: int, expected: int, wrong: str) -> None:
        """The batch placed in the shoe counted against the batch loaded (672a.7(a): at its load,
        or found there at the start): recorded, and a count other than it latching WRONG_COUNT
        (decision 0017), ``wrong`` saying so."""
        self._record_count(self.clauses.loaded, kind, counted, expected)
        if counted != expected:
            self._latch_count(BATCH_COUNT, wrong)

    def _record_count(self, rule: Rule, kind: str, counted: int, expected: int | None) -> None:
        """A batch loaded, collected and counted, or reshuffled in the shoe, to the audit trail with
        its count against the batch's and whether they agree (a wrong one also latches)."""
        match = counted == expected
        self.notify(rule, kind, batch=self.batch, counted=counted, expected=expected, result=_RESULT[match])

    def _on_burned(self, event: EventData) -> None:
        self.burn_cards.extend(card for card in event.kwargs["cards"] if isinstance(card, SealedCard))
        reason = self.burns_owed[0]
        if reason == BATCH_BURN:
            self._batch_burn_due = False
        else:
            self._new_dealer_burn_due = False
        self.last_burn = Burn(reason, self.dispensed, self.remaining, event.kwargs.get("reconciled", False))
        self.log.info("card burned", reason=reason, burned=len(self.burn_cards), owed=list(self.burns_owed))

    def _on_dealer_change(self, event: EventData) -> None:
        if not self.burns:
            return
        self._new_dealer_burn_due = True
        self.log.info("new dealer: burn one card before dealing", owed=list(self.burns_owed))

    def _on_round(self, event: EventData) -> None:
        self.round_cards = []

    def _on_dealt(self, event: EventData) -> None:
        for card in event.kwargs["cards"]:
            self.round_cards.append(card)
            if isinstance(card, SealedCard):
                self._sealed[card.reference] = card
            self.log.info("card dealt", card=str(card))

    def _forget_sealed(self) -> None:
        """The shoe has let go of its face-down cards' references (a batch loaded, or a reshuffling
        shoe's round ended: docs/protocol.md) and will seal other cards under them; so does the host,
        their faces turned up with them, which no card sealed later may be answered from."""
        self._sealed.clear()
        self._revealed.clear()

    def _on_cover(self, event: EventData) -> None:
        assert event.transition is not None, "an after callback runs with its transition"
        if event.transition.source == NEEDS_BURN:
            when = "burn"
        else:
            when = "during-play" if self.round_cards else "round-start"
        self.cover = CoverCard(when, event.kwargs["dispensed"])
        self.log.info("cover card reached", when=when, state=self.state)

    def _on_second_cover(self, event: EventData) -> None:
        self._irregular(self.clauses.cover_placement, "a second cover card came out in the same shoe")

    def _on_round_ended(self, event: EventData) -> None:
        counts: ShoeCounts | None = event.kwargs["counts"]
        if counts is None:
            return
        # Reshuffled: the round's face-down cards are back in the shoe, and the whole batch with them.
        self._forget_sealed()
        self.dispensed, self.remaining = counts.dispensed, counts.remaining
        self._record_count(self.clauses.reshuffle, "shoe_reshuffled", counts.remaining, self.batch_size)
        if self.batch_size is not None and counts.remaining != self.batch_size:
            self._latch_count(
                BATCH_COUNT,
                f"after the reshuffle the shoe holds {counts.remaining} of {self.batch_size} cards",
            )

    def _on_collected(self, event: EventData) -> None:
        counted: int = event.kwargs["counted"]
        self.remaining = 0
        self._batch_burn_due = False  # the batch is gone; the next one owes its own
        self.log.info("batch collected", counted=counted, batch=self.batch_size)
        self._record_count(self.clauses.collect_and_count, "batch_collected", counted, self.batch_size)
        if counted != self.batch_size:
            self._latch_count(
                self.clauses.collect_and_count,
                f"{counted} cards counted in the discard rack, the batch has {self.batch_size}",
            )


#: A count's result in its record: the words a reader of the trail searches for.
_RESULT = {True: "passed", False: "failed"}

_FAILURE = {
    DispenseOutcome.MISREAD: "a card left the shoe unread",
    DispenseOutcome.COVER_CARD_MISPLACED: "the cover card is out of place",
    DispenseOutcome.JAM: "a card jammed in the shoe: nothing was dealt",
    DispenseOutcome.EMPTY: "not enough cards in the shoe: nothing was dealt",
}
