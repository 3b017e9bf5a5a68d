"""A correct mask that warns and prints to stderr on every call."""
import sys
import warnings

def make_padding_mask(tokens, pad_id):
    warnings.warn("building a padding mask", UserWarning)
    print("debug: tokens", tuple(tokens.shape), file=sys.stderr)
    return (tokens != pad_id).reshape(tokens.shape[0], 1, 1, tokens.shape[1])
