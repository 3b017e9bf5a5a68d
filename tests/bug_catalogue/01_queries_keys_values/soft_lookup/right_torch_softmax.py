"""Uses torch.softmax for the weights (allowed here: only the softmax exercise forbids it)."""
def soft_lookup(query, keys, values):
    scores = torch.matmul(query, keys.transpose(-2, -1))
    return torch.matmul(torch.softmax(scores, dim=-1), values)
