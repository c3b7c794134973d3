"""wavematch's pure matching core.

Standard library (plus numpy/scipy where they earn their place) only: no asyncio,
Kafka, Faust, pydantic or Avro. Frozen dataclasses in, frozen dataclasses out; time,
seeds and ids are inputs. ``tests/test_architecture.py`` enforces the import rule.
"""
