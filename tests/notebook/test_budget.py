"""The safety limit of the notebooks that train: it stops a run only when reached, and then warns above
every later cell."""
from IPython.core.interactiveshell import InteractiveShell

from course_utils.notebook import budget


class _Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


def test_the_limit_is_reached_only_once_its_seconds_have_passed():
    clock = _Clock()
    limit = budget.SafetyLimit(30, clock=clock)
    assert not limit.reached()
    clock.now += 29.9
    assert not limit.reached()
    clock.now += 0.1
    assert limit.reached()


def test_a_run_that_did_all_its_steps_says_nothing(capsys, monkeypatch):
    monkeypatch.setattr(budget, "_warnings", [])
    assert budget.SafetyLimit(30).stopped("training", 400, 400) is False
    assert capsys.readouterr().out == "" and budget._warnings == []


def test_a_run_stopped_early_is_named_now_and_above_every_later_cell(monkeypatch):
    monkeypatch.setattr(budget, "_warnings", [])
    monkeypatch.setattr(budget, "_hooked", set())
    shell = InteractiveShell.instance()
    shown = []
    monkeypatch.setattr(budget, "_show", lambda messages=None: shown.append(list(messages or budget._warnings)))
    try:
        assert budget.SafetyLimit(120).stopped("training", 197, 400, shell=shell) is True
        assert len(shown) == 1 and "`training` stopped" in shown[0][0] and "after 197 of 400 steps" in shown[0][0] and "120 s" in shown[0][0]
        shell.run_cell("x = 1")
        shell.run_cell("y = 2")
        assert len(shown) == 3 and shown[1] == shown[2] == shown[0], "the box heads every cell that runs after"
        hooks = len(shell.events.callbacks["pre_run_cell"])
        budget.SafetyLimit(60).stopped("NoPE", 10, 250, shell=shell)
        shell.run_cell("z = 3")
        assert len(shown[-1]) == 2, "both runs that stopped early are named"
        assert len(shell.events.callbacks["pre_run_cell"]) == hooks, "one hook shows them all"
    finally:
        shell.events.callbacks["pre_run_cell"].clear()
        InteractiveShell.clear_instance()


def test_the_box_is_markdown_with_a_plain_text_twin():
    bundle = budget.box(["training stopped", "NoPE stopped"])
    assert bundle["text/markdown"].count("> ⚠ **Stopped early.**") == 2
    assert bundle["text/plain"].splitlines() == ["!! Stopped early. training stopped", "!! Stopped early. NoPE stopped"]
