"""The table service: one table's devices, dealer and players, playing a game's rounds.

A table owns the device machines of its equipment (devices/) over their drivers, feeds each
connection's events to its machine in order (feeding.py), asks the human dealer for the physical
steps (dealer.py) and the players for their choices (players.py), and drives the game's round
machine (games/) with what the devices report. Each game's table module ends with ``TABLE``, the
table as the service finds it (registry.py): its assembly and its players on the dealer's screen.
"""
