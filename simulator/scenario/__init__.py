"""Scenario files: one tricky case of a game, written down so a table-games engineer can read it, the
simulator can play it (``croupier sim --scenario FILE``) and the tests can check it
(tests/integration/test_scenarios.py runs every file in tests/scenarios/). docs/scenarios.md.

A scenario is plain text, one directive a line, ``#`` comments::

    game free-bet-blackjack
    seats 2
    shoe As Kd 9h Ah 7c Tc        # the cards from the top of the shoe, in dealing order, after the burn
    wager 1 blackjack=1000 push22=500
    insurance 1 even_money
    decide 2 stand
    expect peek dealer_blackjack=True
    expect net 1 1000

The cards are stacked on the simulated devices (the shoe's top after the round's burn at the shoe
games; the shuffler's order for a deck dealt from the hand), the players are scripted (an answer the
file lacks stops the run naming the seat and the prompt, rather than guessing), and each ``expect``
is matched in order against the records the table made before the round (its burns) and then the
round's own (games/common/records.py and each game's own kinds), so the file says what the trail
must hold, not how the code gets there. ``dealer NAME`` has a new dealer take over before the
round. Every mistake in a file is a ScenarioError naming ``file:line``.

The package does four jobs, one module each: ``parse`` reads a file's text into a typed Scenario
(pure: no file, no device), ``actors`` are the scripted players and the stacking and faults the
file asks of the simulated devices and dealer, ``judge`` checks what the round recorded against
the file's expectations, and ``run`` plays a scenario on the game's simulated table. What a game
adds to the language (its decisions, where its cards are stacked, its directives and faults, its
scripted players) is its ``SIMULATION.scenario`` (simulator.games.registry).
"""
