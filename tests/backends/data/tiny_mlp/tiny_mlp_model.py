"""Fixture for the python backend: a two-layer MLP with fixed-seed weights."""

import torch


def build(in_features=8, hidden=16, out_features=4):
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(in_features, hidden), torch.nn.ReLU(),
                               torch.nn.Linear(hidden, out_features))
