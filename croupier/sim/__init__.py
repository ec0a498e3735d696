"""``croupier sim``: a whole virtual table in one command, for developers.

Every device is simulated at the byte level over real pseudo-terminals and the simulated USB bus
(croupier.simulated), simulated players play a sound strategy (croupier.players), and a simulated
floor supervisor clears faults and rules on held rounds so a batch run finishes. ``summary`` tallies
the rounds from their records, ``faults`` reads a fault profile, ``view`` shows the table as it
plays. docs/sim.md documents the command and its JSON summary.
"""
