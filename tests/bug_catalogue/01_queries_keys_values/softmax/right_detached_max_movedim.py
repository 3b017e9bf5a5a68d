"""Moves dim to the end, shifts by a detached max, and moves it back."""
def softmax(x, dim=-1):
    moved = x.movedim(dim, -1)
    shifted = moved - moved.max(dim=-1, keepdim=True).values.detach()
    e = shifted.exp()
    return (e / e.sum(-1, keepdim=True)).movedim(-1, dim)
