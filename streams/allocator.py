"""Keep freed heap memory in the worker process, so a large wave's temporaries do not page-fault.

glibc's malloc gives the top of its heap back to the kernel whenever more than 128 KiB
of it is free (``M_TRIM_THRESHOLD``), and serves blocks above a dynamic threshold by
``mmap`` of their own. A wave's matching makes many NumPy temporaries of about that size
(16,000 int64 values are 125 KiB) and frees them at once, so the heap shrinks and grows
again all the time, and every regrowth faults fresh zeroed pages in, a measurable share
of a 10,000-player ``optimal`` wave (docs/benchmarks/code-figures.md; docs/adr/0085).
Raising both thresholds keeps up to
``trim`` bytes of freed memory for reuse, at most that much more resident memory.

``wavematch worker`` calls :func:`keep_freed_memory` at start (docs/adr/0085): the
process that closes waves all day. Short-lived commands (``join``, ``tail``, ``wave``,
``replay``, ``simulate``) keep the C library's defaults. The timing scripts apply it
too, and say so. It is a process setting, so it lives here rather than in the pure
:mod:`matcher`.
"""

from __future__ import annotations

import ctypes
import sys

#: ``mallopt`` parameters (glibc's malloc.h).
_M_TRIM_THRESHOLD = -1
_M_MMAP_THRESHOLD = -3

#: 32 MiB is glibc's own ceiling for the dynamic mmap threshold on 64-bit machines.
MMAP_THRESHOLD = 32 << 20
TRIM_THRESHOLD = 64 << 20


def keep_freed_memory(trim: int = TRIM_THRESHOLD, mmap: int = MMAP_THRESHOLD) -> bool:
    """Raise glibc's trim and mmap thresholds; True if the C library took both.

    False, and nothing changed, where there is no ``mallopt`` (macOS, Windows) or it
    refuses (musl's is a stub): the matcher then runs as fast as that allocator lets it.

    The trim threshold is the one that counts (measured in docs/adr/history/0072). Setting it
    stops glibc adjusting the mmap threshold by itself, so that one is set to the
    ceiling the adjustment would reach.
    """
    if not sys.platform.startswith("linux"):
        return False
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes, mallopt.restype = (ctypes.c_int, ctypes.c_int), ctypes.c_int
    return bool(mallopt(_M_MMAP_THRESHOLD, mmap)) and bool(mallopt(_M_TRIM_THRESHOLD, trim))
