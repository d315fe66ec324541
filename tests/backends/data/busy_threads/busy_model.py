"""Fixture for the python backend: enough elementwise work (ATen's own OpenMP
parallel_for, independent of the BLAS library) that every intra-op thread
accumulates CPU time, for the thread-count test."""

import torch


class BusyElementwise(torch.nn.Module):
    def __init__(self, repeats, rounds):
        super().__init__()
        self.repeats, self.rounds = repeats, rounds

    def forward(self, x):
        y = x.repeat(1, self.repeats)
        for _ in range(self.rounds):
            y = torch.tanh(y * 1.5)
        return y.mean(dim=1, keepdim=True)


def build(repeats=64, rounds=15):
    return BusyElementwise(repeats, rounds)
