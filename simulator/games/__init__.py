"""Each game in the simulator, one module a game: its table on simulated devices, its simulated
players, and what its simulated dealer, faults and scenario files can do there (``SIMULATION``,
found by simulator.games.registry by the game's module name; docs/adding-a-game.md)."""
