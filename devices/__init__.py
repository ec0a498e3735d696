"""The equipment's own rules, each device class a transitions machine over its driver.

Nothing here knows of a particular game: a shoe refuses to dispense while a fault is latched
whatever game is dealt from it. Every rule carries the clause or source it enforces.
"""
