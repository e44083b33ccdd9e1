"""Personal data: the detectors (GC505) and `goldcase scrub`."""
