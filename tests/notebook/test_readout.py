"""Readings written by the run: comparisons that call a gap within the noise level."""
from course_utils.notebook import readout


def test_ahead_names_the_higher_number_only_past_the_noise():
    assert readout.ahead(("SASRec", 0.597), ("BERT4Rec", 0.124), noise=0.02) == \
        "SASRec is ahead of BERT4Rec (0.597 against 0.124)"
    assert readout.ahead(("BERT4Rec", 0.124), ("SASRec", 0.597), noise=0.02) == \
        "SASRec is ahead of BERT4Rec (0.597 against 0.124)", "whichever comes first"
    assert readout.ahead(("SASRec", 0.597), ("the bigram", 0.599), noise=0.02).startswith(
        "SASRec and the bigram are level (0.597 against 0.599"), "a gap within the noise is no ranking"


def test_ahead_formats_shares_and_can_name_the_noise_it_passed():
    assert readout.ahead(("depth 2", 0.9), ("depth 3", 0.05), noise=0.095, fmt=".1%", beyond=True) == \
        "depth 2 is ahead of depth 3 (90.0% against 5.0%, beyond the noise of 9.5%)"
    assert readout.ahead(("depth 2", 0.167), ("depth 3", 0.183), noise=0.098, fmt=".1%", beyond=True) == \
        "depth 2 and depth 3 are level (16.7% against 18.3%, a gap within the noise of 9.8%)"


def test_noise_of_means_is_two_standard_errors_of_the_widest():
    assert readout.noise_of_means([0.5], 100) == 2 * (0.25 / 100) ** 0.5
    assert readout.noise_of_means([0.9, 0.5, 0.1], 100) == readout.noise_of_means([0.5], 100)


def test_reading_prints_outside_ipython(capsys):
    readout.reading("**Your run**: 0.5")
    assert capsys.readouterr().out == "**Your run**: 0.5\n"
