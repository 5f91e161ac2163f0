"""Small helpers of the readers whose errors name the file, the element and what was
expected (XML ones, and :func:`located` for errors of the core's constructors)."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from accord.core.errors import FormatError, InvalidScenario


@contextmanager
def located(where: str) -> Iterator[None]:
    """Re-raise an :class:`InvalidScenario` as a :class:`FormatError` ``"{where}: ..."``
    (a FormatError, which already says where, passes unchanged).

    >>> with located("x.xml"):
    ...     raise InvalidScenario("weights must be >= 0")
    Traceback (most recent call last):
    ...
    accord.core.errors.FormatError: x.xml: weights must be >= 0
    """
    try:
        yield
    except FormatError:
        raise
    except InvalidScenario as e:
        raise FormatError(f"{where}: {e}") from None


def parse_xml(path: Path) -> ET.Element:
    """The root element of an XML file, or :class:`FormatError` naming the file."""
    try:
        return ET.parse(path).getroot()
    except FileNotFoundError:
        raise FormatError(f"{path}: file not found") from None
    except ET.ParseError as e:
        line, col = e.position
        raise FormatError(
            f"{path}: not well-formed XML at line {line}, column {col}: expected a GENIUS "
            f"domain or profile ({e})"
        ) from None
    except OSError as e:
        raise FormatError(f"{path}: cannot read the file ({e.strerror})") from None


def describe(el: ET.Element) -> str:
    """``<issue index="3" name="Price">``: the tag with its identifying attributes."""
    keys = [k for k in ("index", "name", "value") if k in el.attrib]
    shown = "".join(f' {k}="{el.attrib[k]}"' for k in keys)
    return f"<{el.tag}{shown}>"


def fail(path: Path, el: ET.Element, message: str) -> FormatError:
    """A :class:`FormatError` about element ``el`` of file ``path``."""
    return FormatError(f"{path}: element {describe(el)}: {message}")


def get_attr(path: Path, el: ET.Element, *names: str) -> str:
    """The first present attribute among ``names``; a FormatError if none is there."""
    for n in names:
        v = el.get(n)
        if v is not None:
            return v
    wanted = " or ".join(repr(n) for n in names)
    raise fail(path, el, f"missing attribute {wanted}")


def get_float(path: Path, el: ET.Element, *names: str, default: float | None = None) -> float:
    """A numeric attribute (the first present of ``names``), or ``default`` when absent."""
    if default is not None and all(el.get(n) is None for n in names):
        return default
    raw = get_attr(path, el, *names)
    try:
        return float(raw.strip())
    except ValueError:
        raise fail(path, el, f"attribute {names[0]!r} must be a number, got {raw!r}") from None


def get_int(path: Path, el: ET.Element, *names: str) -> int:
    """An integer attribute (the first present of ``names``)."""
    raw = get_attr(path, el, *names)
    try:
        return int(raw.strip())
    except ValueError:
        try:
            value = float(raw.strip())
        except ValueError:
            value = float("nan")
        if value.is_integer():
            return int(value)
        raise fail(path, el, f"attribute {names[0]!r} must be an integer, got {raw!r}") from None


def fmt(x: float) -> str:
    """A float as the shortest text that reads back to the same number."""
    return repr(float(x))
