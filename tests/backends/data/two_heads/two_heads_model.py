"""Fixture for the python backend: two inputs (float features, int64 token ids) and
two outputs returned as a tuple, so names, order and dtypes are all exercised.
Token ids outside [0, 10) make nn.Embedding raise inside forward()."""

import torch


class TwoHeads(torch.nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(1)
        self.classifier = torch.nn.Linear(8, 3)
        self.embedding = torch.nn.Embedding(10, 4)

    def forward(self, features, token_ids):
        return self.classifier(features), self.embedding(token_ids).sum(dim=1)


def build():
    return TwoHeads()
