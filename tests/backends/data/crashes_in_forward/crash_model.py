"""Fixture for the python backend: forward() says why on stderr, then kills its
process (exit status 3, or SIGSEGV with how="segv") - a worker dying mid-run."""

import os
import signal
import sys

import torch


class CrashesInForward(torch.nn.Module):
    def __init__(self, how):
        super().__init__()
        self.how = how

    def forward(self, x):
        sys.stderr.write("fixture crashes_in_forward: deliberate crash inside forward()\n")
        sys.stderr.flush()
        if self.how == "segv":
            os.kill(os.getpid(), signal.SIGSEGV)
        os._exit(3)


def build(how="exit"):
    return CrashesInForward(how)
