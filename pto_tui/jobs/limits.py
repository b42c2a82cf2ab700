"""The bounds of the job layer: every wait while stopping or cleaning up is limited."""

TERM_GRACE = 3.0  # seconds between TERM and KILL
KILL_GRACE = 2.0  # seconds between KILL and giving up (closing the channel)
HELPER_TIMEOUT = 10.0  # bound on the small helper commands (kill, status, clean-up)
CLOSE_GRACE = 2.0  # how long closing the runner lets background clean-up finish
REATTACH_TRIES = 3  # a detached job's follow is resumed this often after a drop
CLEAN_UP_BATCH = 50  # finished attached jobs whose remote folders are removed together
