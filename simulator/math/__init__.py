"""Math mode (``croupier sim --math``): millions of rounds of a game's own round machine, rules and
pay tables, with no devices, for a game-math review (docs/math.md, decision 0042).

play.py plays one worker's rounds from a seeded shoe; tally.py keeps the per-wager sums and turns
them into the report; run.py spreads the rounds over worker processes; each game that has a math
mode declares it in simulator/math/<game module>.py (``MATH = MathGame(...)``), found by the game's
module name as the simulator's games are (decision 0029).
"""
