"""What the four game packages share: one definition of each piece every round needs (messages,
records, holds, machine parts, the round's shared methods, configuration readers, seating, the
discard pickup, the stub count's cadence). A game imports these from here, never from another
game."""
