"""Find where an Avro binary payload breaks, by field path: the slow path of bad input.

fastavro decodes fast but says only "EOFError" or "list index out of range". When it
fails, this small reader walks the same payload along the writer schema and reports the
first problem with the dotted path of the field (``players[1].ratings.zerg``), so that a
dead letter names the field. It runs only on failure, so it is written for clarity.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from schemas.errors import child_path

_PRIMITIVES = {"null", "boolean", "int", "long", "float", "double", "bytes", "string"}
_INT_RANGE = range(-(2**31), 2**31)


@dataclass(frozen=True, slots=True)
class Problem:
    """The first problem of a payload: an InvalidEvent code, the field path, one line."""

    code: str
    field: str | None
    reason: str


class _Stop(Exception):
    def __init__(self, problem: Problem) -> None:
        super().__init__(problem.reason)
        self.problem = problem


def find_problem(schema: dict[str, Any], payload: bytes) -> Problem | None:
    """Return the first problem of ``payload`` read as ``schema``, or None when it reads.

    >>> schema = {"type": "record", "name": "R", "fields": [{"name": "a", "type": "string"}]}
    >>> find_problem(schema, b"\\x06ab")
    Problem(code='truncated', field='a', reason='a: string of 3 bytes, but only 2 remain')
    >>> find_problem(schema, b"\\x02a") is None
    True
    """
    walker = _Walker(payload, _named_types(schema))
    try:
        walker.read(schema, "")
    except _Stop as stop:
        return stop.problem
    if walker.pos != len(payload):
        extra = len(payload) - walker.pos
        return Problem("trailing_bytes", None, f"{extra} byte(s) after the end of the record")
    return None


def _named_types(
    schema: Any, names: dict[str, Any] | None = None, space: str = ""
) -> dict[str, Any]:
    names = {} if names is None else names
    if isinstance(schema, list):
        for branch in schema:
            _named_types(branch, names, space)
    elif isinstance(schema, dict):
        if schema.get("type") in ("record", "enum", "fixed"):
            space = schema.get("namespace", space)
            name = schema["name"]
            names[name] = names[name if "." in name else f"{space}.{name}"] = schema
        for field in schema.get("fields", ()):
            _named_types(field["type"], names, space)
        for key in ("items", "values"):
            if key in schema:
                _named_types(schema[key], names, space)
    return names


class _Walker:
    def __init__(self, data: bytes, names: dict[str, Any]) -> None:
        self.data = data
        self.pos = 0
        self.names = names

    def fail(self, code: str, path: str, what: str) -> _Stop:
        return _Stop(Problem(code, path or None, f"{path or 'record'}: {what}"))

    def take(self, size: int, path: str, what: str) -> bytes:
        if self.pos + size > len(self.data):
            remain = len(self.data) - self.pos
            raise self.fail("truncated", path, f"{what} of {size} bytes, but only {remain} remain")
        chunk = self.data[self.pos : self.pos + size]
        self.pos += size
        return chunk

    def long(self, path: str) -> int:
        value = shift = 0
        while True:
            if self.pos >= len(self.data):
                raise self.fail("truncated", path, "the payload ends inside a number")
            byte = self.data[self.pos]
            self.pos += 1
            value |= (byte & 0x7F) << shift
            if not byte & 0x80:
                return (value >> 1) ^ -(value & 1)
            shift += 7
            if shift > 63:
                raise self.fail("bad_avro", path, "a variable-length number longer than 10 bytes")

    def length(self, path: str, what: str) -> int:
        size = self.long(path)
        if size < 0:
            raise self.fail("bad_avro", path, f"negative {what} length {size}")
        return size

    def read(self, schema: Any, path: str) -> None:
        if isinstance(schema, list):
            return self.union(schema, path)
        if isinstance(schema, str):
            return (
                self.named(schema, path)
                if schema not in _PRIMITIVES
                else self.primitive(schema, path)
            )
        kind = schema["type"]
        if kind == "record":
            for field in schema["fields"]:
                self.read(field["type"], child_path(path, field["name"]))
        elif kind == "enum":
            self.enum(schema, path)
        elif kind == "array":
            self.blocks(path, lambda index, at: self.read(schema["items"], child_path(at, index)))
        elif kind == "map":
            self.blocks(path, lambda _, at: self.read(schema["values"], self.map_key(at)))
        elif kind == "fixed":
            self.take(schema["size"], path, "fixed value")
        else:
            self.read(kind, path)  # {"type": "long", "logicalType": ...} and the like
        return None

    def named(self, name: str, path: str) -> None:
        self.read(self.names[name], path)

    def primitive(self, kind: str, path: str) -> None:
        if kind == "int":
            if self.long(path) not in _INT_RANGE:
                raise self.fail("bad_avro", path, "an int outside the 32-bit range")
        elif kind == "long":
            self.long(path)
        elif kind == "boolean":
            if self.take(1, path, "boolean")[0] > 1:
                raise self.fail("bad_avro", path, "a boolean byte other than 0 or 1")
        elif kind in ("float", "double"):
            self.take(4 if kind == "float" else 8, path, kind)
        elif kind in ("bytes", "string"):
            self.text(path, kind)

    def text(self, path: str, kind: str = "string") -> str:
        raw = self.take(self.length(path, kind), path, kind)
        if kind == "bytes":
            return ""
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError as error:
            what = f"string is not valid UTF-8 (byte {error.start})"
            raise self.fail("bad_avro", path, what) from None

    def enum(self, schema: dict[str, Any], path: str) -> None:
        index = self.long(path)
        symbols = schema["symbols"]
        if not 0 <= index < len(symbols):
            raise self.fail(
                "unknown_symbol", path, f"enum index {index} is not a symbol of {symbols}"
            )

    def union(self, branches: list[Any], path: str) -> None:
        index = self.long(path)
        if not 0 <= index < len(branches):
            raise self.fail("bad_avro", path, f"union branch {index} of {len(branches)}")
        self.read(branches[index], path)

    def map_key(self, path: str) -> str:
        return child_path(path, self.text(path))

    def blocks(self, path: str, item: Any) -> None:
        index = 0
        while True:
            count = self.long(path)
            if count == 0:
                return
            if count < 0:  # a negative count is followed by the block's size in bytes
                count = -count
                self.length(path, "block")
            # Every item of our schemas takes at least one byte: a larger count is a lie.
            if count > len(self.data) - self.pos:
                raise self.fail("truncated", path, f"{count} items declared, the payload ends")
            for _ in range(count):
                item(index, path)
                index += 1
