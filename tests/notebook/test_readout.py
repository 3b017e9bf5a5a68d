"""Readings written by the run: comparisons that call a gap within the noise level."""
from course_utils.notebook import readout


def test_ahead_names_the_higher_number_only_past_the_noise():
    assert readout.ahead(("SASRec", 0.597), ("BERT4Rec", 0.124), noise=0.02) == \
        "SASRec is ahead of BERT4Rec (0.597 against 0.124)"
    assert readout.ahead(("BERT4Rec", 0.124), ("SASRec", 0.597), noise=0.02) == \
        "SASRec is ahead of BERT4Rec (0.597 against 0.124)", "whichever comes first"
    assert readout.ahead(("SASRec", 0.597), ("the bigram", 0.599), noise=0.02).startswith(
        "SASRec and the bigram are level (0.597 against 0.599"), "a gap within the noise is no ranking"


def test_reading_prints_outside_ipython(capsys):
    readout.reading("**Your run**: 0.5")
    assert capsys.readouterr().out == "**Your run**: 0.5\n"
