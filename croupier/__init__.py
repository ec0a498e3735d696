"""The Croupier service: configuration, daemon, local API, audit trail and the command line."""
