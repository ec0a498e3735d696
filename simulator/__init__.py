"""The developer's virtual table, beside the service rather than inside it.

Every device is simulated at the byte level over real pseudo-terminals and the simulated USB bus
(simulator.tables, on firmware_sim), simulated players play a sound strategy (simulator.players),
and a simulated floor supervisor clears faults and rules on held rounds so a batch run finishes
(simulator.floor). ``summary`` tallies the rounds from their records, ``faults`` reads a fault
profile, ``view`` shows the table as it plays, ``scenario`` runs a scripted round. The service
(croupier/) never imports this package; only the commands that run a simulated table do
(``croupier sim``, and ``croupier run`` when no hardware is configured). docs/sim.md documents it.
"""
