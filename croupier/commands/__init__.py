"""The ``croupier`` commands, one module each: ``run`` (the table service as a daemon), ``sim`` (a
whole virtual table), ``audit`` (verify and show the trail), ``replay`` (rebuild rounds from the
trail) and ``firmware`` (one simulated device for other software, with its console in
``firmware_console``). croupier.cli builds the command line from them.
"""
