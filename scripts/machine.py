"""Which machine a timing ran on, so that figures from different machines are not compared blind.

Milliseconds depend on the machine far more than on noise: the very same code can take
nearly twice as long on another machine (docs/benchmarks/duel.md, ADR 0073). The
timing scripts print :func:`machine_line` first: the
CPU, the interpreter and its build, NumPy and SciPy, and the CPU time of two fixed
reference workloads (a pure-Python loop, a NumPy sort), by which figures taken on two
machines can be scaled.
"""

from __future__ import annotations

import os
import platform
import sysconfig
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import scipy

#: Reference workloads: the fastest of this many runs. A shared or throttled machine runs
#: the same work at very different speeds from one second to the next, and the fastest
#: run is the figure that repeats.
_RUNS = 9


def machine_line() -> str:
    """One line: CPU, cores, interpreter (with its optimisation flags), NumPy, SciPy, and
    the two reference workloads' CPU time."""
    python_ms, numpy_ms = reference_ms()
    return (
        f"Machine: {cpu_name()}, {_cores()} cores; {platform.python_implementation()} "
        f"{platform.python_version()} ({_python_build()}); NumPy {np.__version__}, "
        f"SciPy {scipy.__version__}; reference: Python loop {python_ms:.0f} ms, "
        f"NumPy sort {numpy_ms:.0f} ms (scripts/machine.py)."
    )


def reference_ms() -> tuple[float, float]:
    """CPU milliseconds of the fastest of nine runs of each reference workload: a Python
    loop of two million additions, and ``np.sort`` of two million seeded int64 values."""
    values = np.random.default_rng(1).integers(0, 1 << 40, size=2_000_000)
    return _fastest(_python_loop), _fastest(lambda: np.sort(values))


def cpu_name() -> str:
    """The CPU's model name where Linux tells it, else what the platform module does."""
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        for line in cpuinfo.read_text().splitlines():
            if line.startswith("model name"):
                return line.partition(":")[2].strip()
    return platform.processor() or platform.machine()


def _cores() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def _python_build() -> str:
    """Whether the interpreter was built with profile-guided and link-time optimisation
    (distributions' builds usually are; a plain ``./configure`` one, as pyenv's, is not)."""
    flags = str(sysconfig.get_config_var("CONFIG_ARGS") or "")
    found = [name for name in ("--enable-optimizations", "--with-lto") if name in flags]
    return " ".join(found) if found else "no PGO/LTO build flags"


def _python_loop() -> None:
    total = 0
    for value in range(2_000_000):
        total += value


def _fastest(work: Callable[[], object]) -> float:
    times = []
    for _ in range(_RUNS):
        start = time.process_time()
        work()
        times.append(time.process_time() - start)
    return min(times) * 1000


if __name__ == "__main__":
    print(machine_line())
