"""How long ``croupier sim`` plays and what its live view says is left (simulator.view.Course):
rounds, minutes or whichever comes first, the time left measured at the pace so far."""

from __future__ import annotations

from simulator.view import Course


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_rounds_alone_end_the_run_and_the_time_left_is_the_pace_so_far():
    clock = Clock()
    course = Course(10, 0.0, clock(), clock)
    assert course.left(0) is None, "nothing to measure the pace by yet"
    clock.now += 8.0
    assert course.left(4) == 12.0 and course.share(4) == 0.4
    assert not course.done(9) and course.done(10)


def test_minutes_alone_end_the_run_once_the_time_is_up():
    clock = Clock()
    course = Course(0, 60.0, clock(), clock)
    clock.now += 45.0
    assert course.left(1000) == 15.0 and course.share(1000) == 0.75 and not course.done(1000)
    clock.now += 15.0
    assert course.done(1000) and course.left(1000) == 0.0


def test_with_both_whichever_comes_first():
    clock = Clock()
    course = Course(100, 60.0, clock(), clock)
    clock.now += 30.0
    assert course.left(10) == 30.0, "the clock runs out before the 90 rounds left (270 s at this pace)"
    assert course.left(80) == 7.5, "the rounds run out before the clock"
    assert course.done(100) and not course.done(99)
