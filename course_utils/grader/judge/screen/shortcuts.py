"""Each exercise's forbidden shortcut (CURRICULUM.md), as what it is rather than what it is called.

For the screen's rules, which flag an exercise's answer (or a helper of the student's that the answer
calls) when it reaches torch's ready-made version of the thing the exercise teaches: torch.softmax
in `softmax`, `scaled_dot_product_attention` and `nn.MultiheadAttention` in every attention exercise,
sacreBLEU in `corpus_bleu`. A shortcut is matched on the dotted path the screen resolved the code to
(`trusted.sdpa`, `F.scaled_dot_product_attention`, `sm` after `sm = torch.softmax`, `getattr(F, "soft"
+ "max")` are one and the same), and on a method called on a value (`x.softmax(-1)`), whose type the
screen cannot know. The run-time check by function identity inside the kernel is the tests' own.
"""
from __future__ import annotations

import ast
from typing import TypeVar

Cell = TypeVar("Cell")

# The names, in torch, sacreBLEU or NLTK, of what each exercise may not call: any part of a path.
_ATTENTION = ("scaled_dot_product_attention", "MultiheadAttention", "multi_head_attention_forward",
              "Transformer", "TransformerEncoder", "TransformerDecoder", "TransformerEncoderLayer",
              "TransformerDecoderLayer")
SHORTCUTS: dict[str, tuple[str, ...]] = {
    "softmax": ("softmax", "log_softmax", "softmin", "Softmax", "LogSoftmax", "Softmin"),
    "LayerNorm": ("layer_norm", "LayerNorm", "native_layer_norm", "group_norm", "GroupNorm", "rms_norm", "RMSNorm"),
    "corpus_bleu": ("sacrebleu", "corpus_bleu", "sentence_bleu", "BLEU", "nltk"),
}
# The attention shortcuts hold in every exercise but those of the notebook that teaches SDPA itself.
ATTENTION_TAUGHT = ("09_efficient_attention",)
PACKAGES = ("torch", "sacrebleu", "nltk")  # whose paths can be a shortcut (a student's own `softmax` is not one)


def forbidden(assignment: str, exercise: str) -> frozenset[str]:
    """The names an exercise's answer may not reach."""
    own = SHORTCUTS.get(exercise, ())
    return frozenset(own if assignment in ATTENTION_TAUGHT else (*own, *_ATTENTION))


def matches(path: str, names: frozenset[str]) -> bool:
    """Whether the dotted path (torch.nn.functional.softmax) is one of the shortcuts `names`."""
    parts = path.split(".")
    return parts[0] in PACKAGES and any(p in names for p in parts)


def reached_definitions(tree: ast.Module, others: list[tuple[Cell, ast.Module]]) -> list[tuple[Cell, ast.AST]]:
    """(cell, definition) of the student's functions and classes in other cells that the code of `tree`
    names, directly or through each other: helpers an exercise's answer calls."""
    defined = {node.name: (cell, node) for cell, other in others for node in other.body
               if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}
    own = {node.name for node in tree.body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}
    todo, reached = [tree], {}
    while todo:
        for node in ast.walk(todo.pop()):
            if isinstance(node, ast.Name) and node.id in defined and node.id not in own and node.id not in reached:
                reached[node.id] = defined[node.id]
                todo.append(defined[node.id][1])
    return list(reached.values())
