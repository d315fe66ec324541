"""Fixture for the server's tests (python backend): forward() announces that
it started (a file `<gate>.started.<n>`), then waits while the file `gate`
exists, so a test holds an instance busy exactly as long as it needs to fill
a queue, time a request out or kill the worker mid-run."""

import os
import time

import torch


class GatedAddOne(torch.nn.Module):
    def __init__(self, gate):
        super().__init__()
        self.gate = gate
        self.calls = 0

    def forward(self, x):
        self.calls += 1
        with open(f"{self.gate}.started.{self.calls}", "w"):
            pass
        deadline = time.monotonic() + 60  # a test that forgets the gate still ends
        while os.path.exists(self.gate) and time.monotonic() < deadline:
            time.sleep(0.005)
        return x + 1


def build(gate):
    return GatedAddOne(gate)
