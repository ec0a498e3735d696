"""The table world: cards move between places and are never created or lost on the way."""

from __future__ import annotations

import multiprocessing
import pickle
import random
import threading

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from firmware_sim.remote import RemoteWorld, WorldServer
from firmware_sim.world import (
    DISCARD,
    FLOOR,
    SHOE,
    SHOE_TRAY,
    SHUFFLER_INPUT,
    PhysicalCard,
    TableWorld,
    WorldError,
    read_stack_file,
    seat,
)
from vocabulary.cards import JOKER_RANK, Card, CardError, standard_deck

PLACES = [SHUFFLER_INPUT, SHOE, SHOE_TRAY, DISCARD, FLOOR, seat(1), seat(2)]


def test_a_batch_is_its_decks_with_one_back():
    world = TableWorld()
    cards = world.add_batch(SHOE, "red", decks=6, jokers=1)
    assert len(cards) == 6 * 53 and {c.back for c in cards} == {"red"}
    assert world.count(SHOE) == 318
    world.check()


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.tuples(st.sampled_from(PLACES), st.sampled_from(PLACES), st.integers(1, 5)), max_size=60),
    st.integers(0, 3),
)
def test_any_sequence_of_moves_conserves_the_cards(moves, drops):
    world = TableWorld()
    world.add_batch(SHUFFLER_INPUT, "blue", decks=1)
    world.faults.drop_next = drops
    for src, dst, count in moves:
        if world.count(src) >= count:
            world.move(src, dst, count)
        world.check()
    assert world.total() == 52


def test_a_card_appearing_or_vanishing_outside_add_and_remove_is_caught():
    world = TableWorld()
    world.add_batch(SHOE, "red", decks=1)
    world.places[SHOE].pop()  # a card vanishes without a trace
    with pytest.raises(WorldError, match="51 on the table, 52 expected"):
        world.check()
    world = TableWorld()
    world.add_batch(SHOE, "red", decks=1)
    world.places[DISCARD] = [world.places[SHOE][0]]  # the same card in two places
    with pytest.raises(WorldError, match="1 duplicated"):
        world.check()


def test_removing_a_deck_from_the_table_keeps_the_books():
    world = TableWorld()
    world.add_batch(DISCARD, "red", decks=2)
    removed = world.remove(DISCARD)
    assert len(removed) == 104 and world.total() == 0
    world.check()


def test_a_dropped_card_lands_on_the_floor():
    world = TableWorld()
    world.add(SHOE, [Card.parse("As"), Card.parse("Kd")], "red")
    world.faults.drop_next = 1
    assert world.move(SHOE, SHOE_TRAY) == []
    assert [str(c.face) for c in world.cards(FLOOR)] == ["As"]
    world.check()


def test_a_stuck_card_does_not_move():
    world = TableWorld()
    world.add(SHOE, [Card.parse("9h")], "red")
    world.faults.stuck.add(SHOE)
    with pytest.raises(WorldError, match="stuck"):
        world.move(SHOE, SHOE_TRAY)
    assert world.count(SHOE) == 1


def test_a_foreign_card_enters_through_add_and_is_counted():
    world = TableWorld()
    world.add_batch(SHUFFLER_INPUT, "red", decks=1)
    (foreign,) = world.add(SHUFFLER_INPUT, [Card.parse("Qs")], "green", at=10)
    assert world.cards(SHUFFLER_INPUT)[10] == foreign and world.total() == 53
    world.check()


def test_shuffle_permutes_in_place():
    world = TableWorld()
    world.add_batch(SHOE, "red", decks=1)
    before = world.cards(SHOE)
    world.shuffle(SHOE, random.Random(5))
    after = world.cards(SHOE)
    assert sorted(c.uid for c in after) == sorted(c.uid for c in before) and after != before


def test_stack_file_lists_cards_top_first_with_the_cover_card(tmp_path):
    path = tmp_path / "shoe.txt"
    path.write_text("# dealer blackjack\nAs 10d  Kh   # first round\nCOVER 2c Xr\n")
    faces = read_stack_file(path)
    assert [str(f) if f else "COVER" for f in faces] == ["As", "Td", "Kh", "COVER", "2c", "Xr"]
    world = TableWorld()
    cards = world.add(SHOE, faces, "red")
    assert isinstance(cards[3], PhysicalCard) and cards[3].is_cover


def test_stack_file_error_names_file_and_line(tmp_path):
    path = tmp_path / "shoe.txt"
    path.write_text("As Kd\n1x\n")
    with pytest.raises(CardError, match=r"shoe.txt:2: '1x' is not a card"):
        read_stack_file(path)


def _deal_two(world: TableWorld, dst: str) -> tuple[list[PhysicalCard], bool]:
    """A device's action: two cards moved, and whether another thread could take the lock meanwhile."""
    moved = world.move(SHOE, dst, 2)
    others: list[bool] = []
    thread = threading.Thread(target=lambda: others.append(world.lock.acquire(blocking=False)))
    thread.start()
    thread.join()
    return moved, others[0]


def _jam(world: TableWorld) -> None:
    world.take(FLOOR)  # the floor is empty: a physical impossibility


def test_an_action_on_the_world_is_taken_under_its_lock():
    world = TableWorld()
    world.add_batch(SHOE, "red", decks=1)
    moved, interleaved = world.atomically(_deal_two, SHOE_TRAY)
    assert [card.uid for card in moved] == [1, 2] and world.count(SHOE_TRAY) == 2
    assert not interleaved  # no other thread took the lock between the two moves


def test_an_action_asked_from_the_devices_process_runs_in_the_tables_world():
    """RemoteWorld (the devices' process's view of the world) sends the whole action over the
    world channel: it runs against the table process's world, its answer comes back, and its
    error is raised where it was asked, the channel still serving and no lock left held."""
    world = TableWorld()
    world.add_batch(SHOE, "red", decks=1)
    here, there = multiprocessing.Pipe()
    server = WorldServer(world, here).start()
    remote = RemoteWorld(there)
    moved, interleaved = remote.atomically(_deal_two, seat(1))
    assert [card.uid for card in moved] == [1, 2] and world.count(seat(1)) == 2 and not interleaved
    with pytest.raises(WorldError, match="floor holds 0 card"):
        remote.atomically(_jam)
    assert remote.count(SHOE) == 50
    assert world.lock.acquire(blocking=False)  # the server thread holds nothing
    world.lock.release()
    there.close()  # the devices' process ends: the server thread with it
    server.join(5)
    here.close()


def test_cards_and_a_stack_pickle_to_the_same_faces_and_cards_as_they_cross_to_the_devices_process():
    """The devices' child process gets stacks pickled (decision 0048): every face, jokers too, comes
    back as the one Card of its code, and a physical card with its uid, face (or none, the cover
    card) and back."""
    faces = [*standard_deck(), Card(JOKER_RANK, 0), Card(JOKER_RANK, 1)]
    assert [pickle.loads(pickle.dumps(face)) for face in faces] == faces
    assert all(pickle.loads(pickle.dumps(face)) is Card.from_code(face.code) for face in faces)
    stack = [PhysicalCard(7, Card.parse("As"), "blue"), PhysicalCard(8, None, "red")]
    assert pickle.loads(pickle.dumps(stack, pickle.HIGHEST_PROTOCOL)) == stack
