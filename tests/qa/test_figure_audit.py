"""The figure audit itself: it flags what makes a figure unreadable, and nothing else.

Every notebook's figures are audited in tests/qa/test_demo.py, whose `course demo` executes
them all with COURSE_FIGURE_AUDIT set (one execution for both checks).
"""

from course_utils.qa import figure_audit


def test_the_audit_flags_what_it_should(tmp_path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    audit = tmp_path / "figures.jsonl"
    figure_audit.install(audit)
    try:
        fig, (good, bad) = plt.subplots(1, 2)
        image = good.imshow([[0, 1], [1, 0]], cmap="viridis")
        fig.colorbar(image, ax=good)
        good.set(title="weights", xlabel="key", ylabel="query")
        bad.imshow([[0, 1], [1, 0]], cmap="jet")
        bad.plot([0, 1], [0, 1], "-", label="one")
        bad.plot([0, 1], [1, 0], "-", label="two")
        good.plot([0, 1], [0, 1], "-", label="solid")
        good.plot([0, 1], [1, 0], "--", label="dashed")
        fig.savefig(tmp_path / "figure.png")
        plt.close(fig)
        [record] = figure_audit.read(audit)
    finally:
        figure_audit._installed["path"] = str(tmp_path / "after-the-test.jsonl")
    assert [ax["colorbar"] for ax in record["axes"]] == [False, False, True]
    problems = figure_audit.problems(record)
    assert any("axes 2 of 2" in p and "no title" in p for p in problems)
    assert any("no xlabel" in p for p in problems) and any("no ylabel" in p for p in problems)
    assert any("'jet'" in p for p in problems)
    assert any("axes 2 of 2" in p and "differ only by colour" in p for p in problems)
    assert not any("axes 1 of 2" in p for p in problems)
    assert figure_audit.grayscale_safe("cividis_r") and not figure_audit.grayscale_safe("rainbow")


def test_only_the_executor_starts_the_audit(monkeypatch):
    """Kernels of `course execute` get the audit when it is asked for; nothing else ever does."""
    from course_utils.qa.execute import kernel_arguments

    monkeypatch.delenv(figure_audit.ENV, raising=False)
    assert figure_audit.KERNEL_ARGUMENT not in kernel_arguments()
    monkeypatch.setenv(figure_audit.ENV, "/tmp/figures.jsonl")
    assert figure_audit.KERNEL_ARGUMENT in kernel_arguments()


def _figure_with_title(title_size, title="A title much too long to fit across this small figure"):
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(4, 3), dpi=100, layout="constrained")   # the layout makes room for labels, not width
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    ax.plot([0, 1], [0, 1])
    ax.set(xlabel="x", ylabel="y")
    fig.suptitle(title, fontsize=title_size)
    return fig


def test_the_audit_flags_a_title_cut_at_the_edge_of_the_image(tmp_path):
    """A text reaching past the canvas is cut in the saved image; the same text made to fit is not flagged."""
    audit = tmp_path / "figures.jsonl"
    figure_audit.install(audit)
    try:
        for size in (16, 8):   # too wide for 400 pixels, then narrow enough
            _figure_with_title(size).savefig(tmp_path / f"title-{size}.png", bbox_inches=None)
        # Cropped to what is drawn, as the inline backend does: nothing is cut.
        _figure_with_title(16, "Another title much too long for this small figure").savefig(
            tmp_path / "tight.png", bbox_inches="tight")
        cut, fits, tight = figure_audit.read(audit)
    finally:
        figure_audit._installed["path"] = str(tmp_path / "after-the-test.jsonl")
    assert cut["cut_texts"] == ["A title much too long to fit across this small figure"]
    assert any("reaches past the edge" in p for p in figure_audit.problems(cut))
    assert fits["cut_texts"] == [] and tight["cut_texts"] == []
    assert not any("reaches past the edge" in p for p in figure_audit.problems(fits) + figure_audit.problems(tight))


def test_no_text_of_the_course_map_is_cut():
    """The map is drawn into a fixed canvas (no tight crop), so every caption must fit inside it."""
    from course_utils.qa import figure1

    for aid in figure1.MARKS:
        assert figure_audit.texts_outside(figure1._draw(aid)) == [], aid
