"""Bytes <-> typed messages: the protocol codec, transports and link supervision.

Nothing here knows of games: a driver moves messages between the host and one piece of table
equipment and keeps the link healthy.
"""
