"""The dealer's screen as the table service sees it: the prompt the table waits on, the answers
keyed for it read strictly into the game's own messages, and the players and dealer of a table
driven from it.

It knows nothing of HTTP: the API (croupier.api) is one adapter that shows these prompts and carries
the answers, and the service imports this package, never the API.
"""
