"""Coverage-guided fuzzing (atheris, libFuzzer) of the worker's per-record path: decode ->
translate -> fold -> encode, from the golden inputs (tests/fuzz/worker_path.py says what a
case is and what it checks). A crash leaves its input as ``crash-*`` in the artifact folder:
make it a regression test (tests/fuzz/test_regressions.py).

    .venv/bin/python scripts/fuzz_worker_path.py --seconds 3600 [--corpus fuzz-corpus]

The corpus folder is kept, so the next run starts from what this one found (the default,
``fuzz-corpus/`` of the folder it is run from, is ignored by git). The test suite runs it
for under a minute (tests/fuzz/test_atheris.py); longer runs find more.
Extra arguments go to libFuzzer (``-jobs=2``, ``-seed=7``, ...).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import atheris

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

# Only our code is instrumented: coverage of pydantic's or fastavro's insides would steer
# the fuzzer towards their branches, not ours.
with atheris.instrument_imports(include=["schemas", "streams", "matcher", "tests"]):
    from tests.fuzz.worker_path import run_case, seeds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=int, default=600, help="how long to fuzz")
    parser.add_argument(
        "--corpus", type=Path, default=Path("fuzz-corpus"), help="corpus folder, kept between runs"
    )
    parser.add_argument("--artifacts", type=Path, default=Path("."), help="where crashes go")
    parser.add_argument("--seed", type=int, default=1, help="libFuzzer's random seed")
    args, extra = parser.parse_known_args()
    corpus = args.corpus
    corpus.mkdir(parents=True, exist_ok=True)
    args.artifacts.mkdir(parents=True, exist_ok=True)
    for index, seed in enumerate(seeds()):
        (corpus / f"golden-{index:03d}").write_bytes(seed)
    libfuzzer = [
        sys.argv[0],
        f"-max_total_time={args.seconds}",
        f"-seed={args.seed}",
        "-timeout=20",
        f"-artifact_prefix={args.artifacts}/",
        *extra,
        str(corpus),
    ]
    atheris.Setup(libfuzzer, run_case)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
