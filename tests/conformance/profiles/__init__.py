"""One ConformanceProfile per device class, each module exposing ``PROFILE``."""
