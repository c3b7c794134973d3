"""An ordered set with O(log n) insert and delete and O(1) neighbours.

A treap (binary search tree with heap-ordered random priorities) finds where a key
goes; a doubly linked list through the same nodes gives the predecessor and successor
of any node in O(1), which is how the game queue walks a window. Priorities come from
a seeded RNG, so the shape (and the running time) is reproducible.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any, Generic, Protocol, TypeVar


class _Key(Protocol):
    def __lt__(self, other: Any, /) -> bool: ...


K = TypeVar("K", bound=_Key)
V = TypeVar("V")


class Node(Generic[K, V]):
    """One element: its key, payload, tree links and list links."""

    __slots__ = ("key", "left", "next", "prev", "priority", "right", "value")

    def __init__(self, key: K, value: V, priority: float) -> None:
        self.key = key
        self.value = value
        self.priority = priority
        self.left: Node[K, V] | None = None
        self.right: Node[K, V] | None = None
        self.prev: Node[K, V] | None = None
        self.next: Node[K, V] | None = None


class OrderedSet(Generic[K, V]):
    """Nodes kept in key order; keys must be distinct.

    >>> s = OrderedSet[int, str](seed=1)
    >>> nodes = [s.insert(key, str(key)) for key in (5, 1, 3)]
    >>> [node.value for node in s]
    ['1', '3', '5']
    >>> s.remove(nodes[2]); [node.key for node in s], len(s)
    ([1, 5], 2)

    Notes: insert and remove O(log n) expected; prev/next O(1).
    """

    def __init__(self, seed: int) -> None:
        self._rng = random.Random(seed)
        self._root: Node[K, V] | None = None
        self._first: Node[K, V] | None = None
        self._size = 0

    def __len__(self) -> int:
        return self._size

    def __iter__(self) -> Iterator[Node[K, V]]:
        node = self._first
        while node is not None:
            yield node
            node = node.next

    def insert(self, key: K, value: V) -> Node[K, V]:
        node: Node[K, V] = Node(key, value, self._rng.random())
        smaller, larger = _split(self._root, key)
        before = _last(smaller)
        self._root = _merge(_merge(smaller, node), larger)
        node.prev = before
        node.next = self._first if before is None else before.next
        if node.next is not None:
            node.next.prev = node
        if before is None:
            self._first = node
        else:
            before.next = node
        self._size += 1
        return node

    def remove(self, node: Node[K, V]) -> None:
        smaller, rest = _split(self._root, node.key)
        # ``rest`` starts with ``node`` (keys are distinct): drop its leftmost element.
        self._root = _merge(smaller, _drop_first(rest))
        if node.prev is None:
            self._first = node.next
        else:
            node.prev.next = node.next
        if node.next is not None:
            node.next.prev = node.prev
        node.prev = node.next = node.left = node.right = None
        self._size -= 1


def _split(root: Node[K, V] | None, key: K) -> tuple[Node[K, V] | None, Node[K, V] | None]:
    """(keys < key, keys >= key)."""
    if root is None:
        return None, None
    if root.key < key:
        smaller, larger = _split(root.right, key)
        root.right = smaller
        return root, larger
    smaller, larger = _split(root.left, key)
    root.left = larger
    return smaller, root


def _merge(a: Node[K, V] | None, b: Node[K, V] | None) -> Node[K, V] | None:
    """Merge two treaps where every key of ``a`` is below every key of ``b``."""
    if a is None:
        return b
    if b is None:
        return a
    if a.priority > b.priority:
        a.right = _merge(a.right, b)
        return a
    b.left = _merge(a, b.left)
    return b


def _last(root: Node[K, V] | None) -> Node[K, V] | None:
    while root is not None and root.right is not None:
        root = root.right
    return root


def _drop_first(root: Node[K, V] | None) -> Node[K, V] | None:
    if root is None:
        return None
    if root.left is None:
        return root.right
    root.left = _drop_first(root.left)
    return root
