"""The claims audit (course_utils.qa.claims): a number the prose states must be one its run printed.

Each test builds a small executed notebook (markdown prose, code cells with outputs), so that what the
audit accepts and refuses is shown on numbers chosen for it; tests/qa/test_demo.py audits every real
notebook as the demo ran it, and plants a wrong number in one of them.
"""
import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

from course_utils.qa import claims


def _executed(*cells):
    """A notebook from ("md", text[, claims]) and ("out", printed text) pairs."""
    nb = new_notebook()
    for kind, text, *meta in cells:
        if kind == "md":
            cell = new_markdown_cell(text)
            if meta:
                cell.metadata["course"] = {"claims": meta[0]}
        else:
            cell = new_code_cell("print(...)", outputs=[new_output("stream", name="stdout", text=text)])
        nb.cells.append(cell)
    return nbformat.from_dict(nb)


def test_stated_numbers_are_the_measured_looking_ones():
    text = ("In our run 48.3 % disagreed (0.574 NDCG@10, 1.2e-7 apart, 3.8x faster, 1 200 steps, 61 %). "
            "See section 3.5, Table 2, `p=0.15`, $\\epsilon = 0.1$, [a link](https://arxiv.org/abs/1706.03762), "
            "version 2.13.0, and 3.2.1 is a section; both ends of 0.5-0.9 are stated.")
    found = [(s.value, s.percent) for s in claims.stated_numbers(text)]
    assert found == [(48.3, True), (0.574, False), (1.2e-7, False), (3.8, False), (61.0, True), (0.5, False), (0.9, False)]


def test_a_number_the_run_printed_passes_in_its_own_form_or_as_a_fraction():
    nb = _executed(("out", "exact match: 48.34%\nNDCG@10 0.5741\nshare 0.613\n"),
                   ("md", "It matched 48.3 % exactly, NDCG@10 0.574; the commoner number is 61.3 % of them."))
    assert claims.audit(nb, root=None) == []


def test_a_planted_wrong_number_is_refused():
    nb = _executed(("out", "exact match: 48.34%\nNDCG@10 0.5741\n"),
                   ("md", "It matched 58.3 % exactly, NDCG@10 0.574."))
    problems = claims.audit(nb, root=None)
    assert len(problems) == 1 and "58.3 %" in problems[0] and "did not print" in problems[0]


def test_a_number_printed_only_further_on_does_not_vouch_for_the_text():
    nb = _executed(("md", "# One\n"), ("out", "a 0.10\n"),
                   ("md", "It reads 0.42.\n"),
                   ("md", "# Two\n"), ("out", "b 0.42\n"))
    assert [p for p in claims.audit(nb, root=None) if "0.42" in p]
    # the same number printed in its own section, even after the text, is its run's
    nb = _executed(("md", "# One\n"), ("md", "It reads 0.42.\n"), ("out", "b 0.42\n"))
    assert claims.audit(nb, root=None) == []


def test_a_percentage_and_a_plain_number_are_not_the_same_claim():
    nb = _executed(("out", "speedup 12.5\n"), ("md", "It sped up 12.5 % of the runs."))
    assert claims.audit(nb, root=None)


def test_listed_numbers_must_be_stated_and_recorded_ones_must_be_in_their_document(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "runs.md").write_text("| full mode | 0.618 | 99.1 |\n", encoding="utf-8")
    listed = {"stated": ["0.1"], "recorded": {"docs/runs.md": ["0.618", "99.1 %"]}}
    nb = _executed(("md", "Label smoothing 0.1; the full run gave 0.618 and 99.1 %.", listed))
    assert claims.audit(nb, tmp_path) == []

    stale = _executed(("md", "Label smoothing 0.2; the full run gave 0.618 and 99.1 %.", listed))
    problems = claims.audit(stale, tmp_path)
    assert any("0.2" in p and "did not print" in p for p in problems)
    assert any("0.1 is listed" in p and "no longer states" in p for p in problems)

    wrong = _executed(("md", "The full run gave 0.628.", {"recorded": {"docs/runs.md": ["0.628"]}}))
    assert any("0.628 is listed as recorded in docs/runs.md, which does not have it" in p
               for p in claims.audit(wrong, tmp_path))


def test_a_conclusion_needs_the_line_that_decides_it():
    verdict = {"conclusions": ["test: best BLEU: the paper's beam"]}
    held = _executed(("out", "test: best BLEU: the paper's beam\n"), ("md", "Beam search wins on the test split.", verdict))
    assert claims.audit(held, root=None) == []
    reversed_ = _executed(("out", "test: best BLEU: greedy\n"), ("md", "Beam search wins on the test split.", verdict))
    assert any("best BLEU: the paper's beam" in p for p in claims.audit(reversed_, root=None))


def test_counts_are_audited_and_other_whole_numbers_are_not():
    found = [(s.value, s.decimals) for s in claims.stated_numbers(
        "Beam search got 10 of greedy's 25 right, 3 of 64 exact; 512 dimensions, 6 layers, 2017.")]
    assert found == [(10, 0), (25, 0), (3, 0), (64, 0)]
    printed = _executed(("out", "right 10, search errors 25\n"), ("md", "It got 10 of greedy's 25 right."))
    assert claims.audit(printed, root=None) == []
    stale = _executed(("out", "right 10, search errors 25\n"), ("md", "It got 12 of greedy's 25 right."))
    assert any("states 12," in p for p in claims.audit(stale, root=None))


def test_a_recorded_count_is_listed_as_the_prose_writes_it(tmp_path):
    (tmp_path / "runs.md").write_text("| seed 1 | 21 of 23 |\n", encoding="utf-8")
    nb = _executed(("md", "With seed 1, 21 of 23.", {"recorded": {"runs.md": ["21 of 23"]}}))
    assert claims.audit(nb, tmp_path) == []
    wrong = _executed(("md", "With seed 1, 22 of 23.", {"recorded": {"runs.md": ["22 of 23"]}}))
    assert any("22 is listed as recorded" in p for p in claims.audit(wrong, tmp_path))
