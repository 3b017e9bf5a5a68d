"""The checks test cells use: teaching messages that never show expected values; silence on stderr."""
import sys
import warnings

import pytest
import torch

from course_utils.notebook import checks


def test_expect_close_passes_and_hides_expected_values():
    reference = torch.tensor([0.123456, 0.654321])
    checks.expect_close(reference.clone(), reference, "weights")
    with pytest.raises(AssertionError) as failure:
        checks.expect_close(reference + 1.0, reference, "weights", hint="check the axis of your softmax")
    message = str(failure.value)
    assert "weights is wrong at 2 of 2 entries" in message and "axis of your softmax" in message
    assert "0.123" not in message and "0.654" not in message


def test_checks_reject_non_tensors_subclasses_and_wrong_shapes():
    class Liar(torch.Tensor):
        def __eq__(self, other):
            return True

    with pytest.raises(AssertionError, match="must be a torch.Tensor"):
        checks.expect_tensor([1.0, 2.0], "output")
    with pytest.raises(AssertionError, match="must be a torch.Tensor"):
        checks.expect_tensor(torch.zeros(2).as_subclass(Liar), "output")
    with pytest.raises(AssertionError, match=r"has shape \(2, 3\), but its shape should be \(3, 2\)"):
        checks.expect_shape(torch.zeros(2, 3), (3, 2), "scores")
    with pytest.raises(AssertionError, match="dtype"):
        checks.expect_close(torch.zeros(2), torch.zeros(2, dtype=torch.float64), "output")
    with pytest.raises(AssertionError, match="NaN or infinite"):
        checks.expect_finite(torch.tensor([1.0, float("nan")]), "weights")


def test_quiet_swallows_warnings_and_stderr(capfd):
    with checks.quiet():
        warnings.warn("a correct answer may warn", UserWarning)
        print("debug line", file=sys.stderr)
    captured = capfd.readouterr()
    assert captured.err == ""


def test_quiet_does_not_swallow_errors():
    with pytest.raises(ZeroDivisionError):
        with checks.quiet():
            1 / 0


def test_call_returns_the_answer_or_fails_with_what_was_called():
    assert checks.call("add", lambda a, b: a + b, 2, 3) == 5

    def broken(x):
        print("debug", file=sys.stderr)
        raise ValueError("shapes do not match")

    with pytest.raises(AssertionError) as failure:
        checks.call("scaled_dot_product_attention on float16 inputs", broken, 1, hint="Use float('-inf').")
    assert str(failure.value) == ("scaled_dot_product_attention on float16 inputs raised ValueError: "
                                  "shapes do not match. Use float('-inf').")


def test_flat_bools_reads_tensors_and_nested_lists_alike():
    mask = torch.tensor([[True, False], [False, True]])
    assert checks.flat_bools(mask) == checks.flat_bools([[True, False], [False, True]]) == [True, False, False, True]
    assert checks.flat_bools(torch.tensor([1, 0], dtype=torch.uint8)) == [True, False]


def test_expect_mask_counts_wrong_entries_and_names_an_inverted_mask():
    reference = [[True, False], [True, True]]
    checks.expect_mask(torch.tensor(reference), reference, "the mask", "hint")
    with pytest.raises(AssertionError, match=r"the mask is wrong at 1 of 4 entries, the first at index \[0, 1\]\. "
                                             r"True at real tokens"):
        checks.expect_mask(torch.tensor([[True, True], [True, True]]), reference, "the mask", "True at real tokens.")
    with pytest.raises(AssertionError, match="inverted everywhere"):
        checks.expect_mask(~torch.tensor(reference), reference, "the mask", "hint")


def test_expect_close_says_where_the_first_wrong_entry_is_never_its_value():
    reference = torch.zeros(2, 3, 4)
    actual = reference.clone()
    actual[1, 2, 0] = 0.123456
    with pytest.raises(AssertionError, match=r"wrong at 1 of 24 entries, the first at index \[1, 2, 0\]") as caught:
        checks.expect_close(actual, reference, "the output")
    assert "0.123456" not in str(caught.value) and "tensor(" not in str(caught.value)


def test_hint_for_names_a_cause_only_when_its_output_is_detected():
    right, swapped = torch.arange(6.0).reshape(2, 3), torch.arange(6.0).reshape(3, 2)
    transposed = right.T.contiguous()
    mistakes = [(transposed, "you transposed it"), (right * 2, "you doubled it")]
    assert checks.matches(right * 2, right * 2) and not checks.matches(right, right * 2)
    assert not checks.matches(right.tolist(), right), "only a plain tensor matches"
    assert checks.hint_for(right * 2, mistakes, "check the formula") == "you doubled it"
    assert checks.hint_for(transposed, mistakes) == "you transposed it"
    assert checks.hint_for(swapped + 1, mistakes, "check the formula") == "check the formula"


def test_call_reports_the_students_exception_in_one_sentence():
    def broken():
        raise RuntimeError("Sizes of tensors must match.")

    with pytest.raises(AssertionError) as caught:
        checks.call("update(0, k, v)", broken, hint="Append along dim=-2.")
    assert str(caught.value) == "update(0, k, v) raised RuntimeError: Sizes of tensors must match. Append along dim=-2."
