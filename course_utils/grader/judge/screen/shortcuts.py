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
    """(cell, definition) of what the code of `tree` names that the student's other cells bind at their
    top level (functions, classes, assignments: `helper = Softmaxer()` reaches the class), directly or
    through each other: the helpers an exercise's answer calls."""
    defined: dict[str, list[tuple[Cell, ast.AST]]] = {}
    for cell, other in others:
        for node in other.body:
            for name in binds(node):
                defined.setdefault(name, []).append((cell, node))
    own = {name for node in tree.body for name in binds(node)}
    todo: list[ast.AST] = [tree]
    reached: dict[int, tuple[Cell, ast.AST]] = {}
    seen: set[str] = set()
    while todo:
        for node in ast.walk(todo.pop()):
            if isinstance(node, ast.Name) and node.id in defined and node.id not in own and node.id not in seen:
                seen.add(node.id)
                for cell, definition in defined[node.id]:
                    if id(definition) not in reached:
                        reached[id(definition)] = (cell, definition)
                        todo.append(definition)
    return list(reached.values())


def binds(node: ast.AST) -> list[str]:
    """The names a top-level statement binds: a function's or class's, an assignment's targets."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [node.name]
    targets = node.targets if isinstance(node, ast.Assign) else \
        [node.target] if isinstance(node, (ast.AnnAssign, ast.AugAssign)) else []
    return [n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)]
