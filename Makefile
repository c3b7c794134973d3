.PHONY: ci test lint typecheck bench

ci:  ## exactly what CI runs
	bash .ci/run

test:
	.venv/bin/python -m pytest -q

lint:
	.venv/bin/ruff check . && .venv/bin/ruff format --check matcher

typecheck:
	.venv/bin/mypy matcher streams schemas
