"""Fixture for the python backend: forward() sleeps (30 s by default), so a test can
interrupt the parent mid-run and check the worker is reaped."""

import sys
import time

import torch


class SlowForward(torch.nn.Module):
    def __init__(self, seconds):
        super().__init__()
        self.seconds = seconds

    def forward(self, x):
        sys.stderr.write(f"fixture slow_forward: sleeping {self.seconds} s in forward()\n")
        sys.stderr.flush()
        time.sleep(self.seconds)
        return x * 2


def build(seconds=30.0):
    return SlowForward(seconds)
