"""A Dask worker preload (`dask worker --preload dask_kills_seed_2`): the worker's process dies
of SIGKILL whenever it is given a sweep run of seed 2, as support.worker_killed_by_seed_2 does to
a local worker."""

import os
import signal

from tcplab import sweep

_run_one = sweep._run_one


def _dies_on_seed_2(scenario, seed, *rest):
    if seed == 2:
        os.kill(os.getpid(), signal.SIGKILL)
    return _run_one(scenario, seed, *rest)


sweep._run_one = _dies_on_seed_2  # a submitted run names tcplab.sweep._run_one: it finds this
