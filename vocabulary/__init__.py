"""What every layer of Croupier speaks: cards and their sealed commitments, rules with the clause
they enforce, irregularities, and the operators who act at a table.

This is the bottom floor: it imports nothing of Croupier, so the codec, the simulated firmware, the
devices' rules, the games and the service can all share it without importing each other. A game
that names a card or a clause does not thereby reach the bytes on the wire.
"""
