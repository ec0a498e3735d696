"""The other end of the wire: simulated devices that speak the Croupier protocol byte for byte.

Imports only drivers.protocol (the message catalog and codec) and the vocabulary: the simulator is a
device, not a mock of our own host code. The simulated dealer's hands, which move cards between the
devices, belong to the developer's virtual table (simulator.dealer).
"""
