"""The Croupier device protocol, version 1 (docs/protocol.md): sans-I/O, no sockets, no sleeps.

firmware_sim imports this package (and only this package of drivers) so the simulated devices speak
exactly the bytes the drivers do. Importing it registers every device class's messages.
"""

from drivers.protocol import classes as classes
