"""The other end of the wire: simulated devices that speak the Croupier protocol byte for byte.

Imports only drivers.protocol (the message catalog and codec): the simulator is a device, not a
mock of our own host code.
"""
