"""The claims audit: every measured number the notebooks' prose states is one their own run printed.

For course authors and CI. A number in a markdown cell goes stale silently: the code changes, the
seed's run gives 0.574 where the text still says 0.599, and a student who gets 0.574 suspects their
own answer. `audit()` reads an executed notebook (what `course execute` writes, fast mode, the
notebook's default seed) and checks every number the prose states that looks measured: a decimal
(0.574, 3.8x, 1.2e-7) or a percentage (48.3 %, 61 %). Each must be one of

- **printed by this run:** the same value, to the decimals the text gives, is in the output of a
  code cell above the text or in its section (stdout, or a rendered text or markdown result), as a
  percentage or as a fraction;
- **a recorded run's:** listed, by document, in the cell's metadata
  `course.claims.recorded` (`{"docs/gpu-runs.md": ["0.618", ...]}`), and present in that document;
- **not a measurement:** listed in `course.claims.stated` (the paper's numbers, definitions,
  settings), and present in the cell.

A conclusion the text draws from the run ("both beams beat greedy on the test split") is tied to the
line of output that decides it: `course.claims.conclusions` lists such lines, and each must be printed
above the text or in its section, else the text reads a run that did not happen.

Anything else is a problem, and so is a listed number the cell no longer states. Whole numbers are
audited only as counts ("25 of 200": both must be the run's); sizes and settings are not, nor numbers in
math (`$...$`), code (`` `...` ``), links' addresses, or section, table and figure references.

Why not a library: the numbers to find are the prose's own (thin spaces, "%" apart, "x" suffixes),
and the matching is the course's rule above; no tool we know audits notebook prose against outputs.
"""
from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from nbformat import NotebookNode

# A decimal (optionally with exponent or thousands groups) or a whole number followed by "%".
# Spaces inside a number: the thin and no-break spaces some prose uses as thousands separators.
_GROUP = r"(?:[,\u2009\u202f\u00a0 ]\d{3})"
NUMBER = re.compile(
    r"(?<![\w./])"                           # not the tail of a word, a version or a path
    r"(?P<number>\d{1,3}" + _GROUP + r"+(?:\.\d+)?|\d+\.\d+(?:e[-+]?\d+)?|\d+(?=[\u2009\u202f\u00a0 ]?%))"
    r"(?P<percent>[\u2009\u202f\u00a0 ]?%)?"
    r"(?!\w*\.\d)")                          # not the head of "3.2.1"
# Contexts whose numbers are names, not measurements.
_SKIP = [re.compile(p) for p in (
    r"\$\$.*?\$\$", r"\$[^$\n]*\$",           # math
    r"```.*?```", r"`[^`\n]*`",               # code
    r"\]\([^)]*\)", r"<[^>]+>",               # link targets, HTML tags
    r"https?://\S+",
    r"(?i)(?:§|section|sections|table|figure|fig\.|eq\.|equation|arxiv:?|python|torch|cuda|version|v)\s*\d[\d.]*",
)]


@dataclass(frozen=True)
class Stated:
    text: str        # as written, e.g. "48.3 %"
    value: float     # 48.3
    decimals: int    # 1
    percent: bool


def _value(number: str) -> tuple[float, int]:
    plain = re.sub(r"[,\u2009\u202f\u00a0 ]", "", number)
    mantissa = plain.split("e")[0]
    return float(plain), len(mantissa.split(".")[1]) if "." in mantissa else 0


# A count out of a total, "25 of 200" or "10 of greedy's 25": two whole numbers that a run measured.
_WHOLE = r"(\d{1,3}(?:[,\u2009\u202f\u00a0]\d{3})+|\d+)"
COUNT = re.compile(r"(?<![\w.])" + _WHOLE + r" of (?:the |its |their |[\w']+'s )?" + _WHOLE +
                   r"(?![\w%]|\.\d|[\u2009\u202f\u00a0 ]%)")


def stated_numbers(markdown: str) -> list[Stated]:
    """The measured-looking numbers of a markdown text (see the module's docstring)."""
    for pattern in _SKIP:
        markdown = pattern.sub(lambda m: " " * len(m.group()), markdown)
    found = []
    for m in NUMBER.finditer(markdown):
        number = m.group("number")
        if not ("." in number or m.group("percent")):
            continue                        # "1 200" alone: an integer
        value, decimals = _value(number)
        found.append(Stated(m.group().strip(), value, decimals, bool(m.group("percent"))))
    for m in COUNT.finditer(markdown):
        for number in m.groups():
            found.append(Stated(number.strip(), _value(number.strip())[0], 0, False))
    return found


def _output_text(cell: NotebookNode) -> str:
    parts = []
    for out in cell.get("outputs", []):
        if out.get("output_type") == "stream" and out.get("name") == "stdout":
            parts.append(out.get("text", ""))
        data = out.get("data", {})
        for kind in ("text/markdown", "text/plain"):
            if kind in data:
                parts.append(data[kind])
                break
    return re.sub(r"\x1b\[[0-9;]*m", "", "\n".join(parts))


def sections(nb: NotebookNode) -> list[int]:
    """Each cell's section: the number of "#" or "##" headings above it (the cell's own included)."""
    numbers, current = [], 0
    for cell in nb.cells:
        if cell.cell_type == "markdown" and re.match(r"#{1,2} ", cell.source.lstrip()):
            current += 1
        numbers.append(current)
    return numbers


_PRINTED = re.compile(r"(?<![\w.])(\d+(?:,\d{3})*(?:\.\d+)?(?:e[-+]?\d+)?)([\u2009\u202f\u00a0 ]?%)?")


def numbers_in(text: str) -> list[tuple[float, bool]]:
    """Every number of a printed text, and whether a "%" follows it."""
    return [(_value(m.group(1))[0], bool(m.group(2))) for m in _PRINTED.finditer(text)]


def _printed_by_section(nb: NotebookNode) -> Callable[[int | None], str]:
    """What the code cells printed up to the end of a section (None: all of it), each cell's output read once."""
    outputs = [(number, _output_text(cell)) for cell, number in zip(nb.cells, sections(nb)) if cell.cell_type == "code"]
    return lambda section: "\n".join(text for number, text in outputs if section is None or number <= section)


def printed_values(nb: NotebookNode, section: int | None = None) -> list[tuple[float, bool]]:
    """Every number the code cells printed (up to the end of `section`, or all), and whether a "%"
    followed it."""
    return numbers_in(_printed_by_section(nb)(section))


def matches(stated: Stated, printed: list[tuple[float, bool]]) -> bool:
    # A percentage is printed as one, or as the fraction it is; any other number as itself. The text
    # may round what the run printed (50.7 % for 50.67%), never the other way round.
    def same(value: float, target: float, decimals: int) -> bool:
        return round(value, decimals) == round(target, decimals)

    for value, percent in printed:
        if percent == stated.percent and same(value, stated.value, stated.decimals):
            return True
        if stated.percent and not percent and same(value, stated.value / 100, stated.decimals + 2):
            return True
    return False


def _claims(cell: NotebookNode) -> dict:
    return cell.get("metadata", {}).get("course", {}).get("claims", {})


def _listed(texts: list[str]) -> list[Stated]:
    """The numbers a cell's metadata lists, each written as the prose writes it ("0.618", "9.7 %", "21 of 23")
    or as a whole number ("12")."""
    listed = []
    for text in texts:
        found = stated_numbers(text) or (
            [Stated(text, _value(text.strip())[0], 0, False)] if re.fullmatch(_WHOLE, text.strip()) else [])
        if not found:
            raise ValueError(f"course.claims lists {text!r}: no number")
        listed.extend(found)
    return listed


def audit(nb: NotebookNode, root: Path | None) -> list[str]:
    """Problems with the prose of an executed notebook: numbers it states that its run did not print
    and no listing accounts for, and listings that are stale. `root` is where docs/ lives."""
    problems = []
    printed_up_to, documents = _printed_by_section(nb), {}
    for index, (cell, section) in enumerate(zip(nb.cells, sections(nb))):
        if cell.cell_type != "markdown":
            continue
        # A reading reads what the run printed above it or in its own section: a number printed further
        # on (often in a table of many numbers) does not vouch for it.
        shown = printed_up_to(section)
        printed = numbers_in(shown)
        where = f"cell {cell.get('id', index)}"
        claims = _claims(cell)
        stated = stated_numbers(cell.source)
        values = {s.value for s in stated}
        accounted = {s.value for s in _listed(claims.get("stated", []))}
        for document, texts in claims.get("recorded", {}).items():
            if document not in documents:
                path = root / document
                documents[document] = numbers_in(path.read_text(encoding="utf-8")) if path.is_file() else []
            recorded = documents[document]
            for listed in _listed(texts):
                # A document's tables often put the "%" in the header: any number of it will do.
                if not matches(listed, [(value, listed.percent) for value, _ in recorded]):
                    problems.append(f"{where}: {listed.text} is listed as recorded in {document}, which does not have it")
                accounted.add(listed.value)
        for listed in sorted(accounted - values):
            problems.append(f"{where}: {listed:g} is listed in its claims but the text no longer states it")
        for s in stated:
            if s.value not in accounted and not matches(s, printed):
                problems.append(f"{where}: states {s.text}, which this run did not print "
                                "(a stale number? else list it under metadata course.claims)")
        if claims.get("conclusions"):
            shown = " ".join(shown.split())
            for line in claims["conclusions"]:
                if " ".join(line.split()) not in shown:
                    problems.append(f"{where}: its conclusion rests on the run printing {line!r}, which this run did not")
    return problems
