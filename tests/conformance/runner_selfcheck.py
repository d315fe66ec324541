#!/usr/bin/python3
"""Self-check of the conformance runner: does it notice a wrong output?

Builds a small synthetic data directory from real ONNX test cases:
  node/test_selfcheck_good          a copy of node/test_add (must pass)
  node/test_selfcheck_wrong_output  the same case with one expected value
                                    changed by 1.0 (must fail, naming output 0)
  node/test_selfcheck_out_of_scope  a copy of node/test_acos (Acos is not in
                                    the issue's list: listed, not counted)
then runs the runner on it and checks its exit status, summary and JSON, and
that a case made to crash or hang (--inject-crash / --inject-hang) fails alone.

  runner_selfcheck.py RUNNER [--source DATA_DIR]   run the self-check
  runner_selfcheck.py --make-fixture DIR           only write the fixture
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

from onnx import TensorProto, numpy_helper

DEFAULT_SOURCE = "/usr/share/libonnx-testdata/data"


def make_fixture(source, out_dir):
    node_dir = os.path.join(out_dir, "node")
    os.makedirs(node_dir, exist_ok=True)
    copies = {
        "test_selfcheck_good": "test_add",
        "test_selfcheck_wrong_output": "test_add",
        "test_selfcheck_out_of_scope": "test_acos",
    }
    for name, original in copies.items():
        shutil.copytree(os.path.join(source, "node", original), os.path.join(node_dir, name))
    expected_path = os.path.join(node_dir, "test_selfcheck_wrong_output", "test_data_set_0",
                                 "output_0.pb")
    proto = TensorProto()
    with open(expected_path, "rb") as f:
        proto.ParseFromString(f.read())
    values = numpy_helper.to_array(proto).copy()
    values.flat[0] += 1.0
    altered = numpy_helper.from_array(values, proto.name)
    with open(expected_path, "wb") as f:
        f.write(altered.SerializeToString())


def run_runner(runner, data_dir, *extra):
    result = subprocess.run([runner, "--data-dir", data_dir, *extra], capture_output=True,
                            text=True, timeout=300)
    return result.returncode, result.stdout + result.stderr


def check(condition, message, failures):
    print(("ok    " if condition else "FAIL  ") + message)
    if not condition:
        failures.append(message)


def check_isolation(runner, data_dir, json_path, failures):
    """A case that crashes or hangs fails alone; the run goes on and exits 1."""
    status, output = run_runner(runner, data_dir, "--json", json_path, "--timeout", "3",
                                "--inject-crash", "good$", "--inject-hang", "wrong_output$")
    with open(json_path) as f:
        cases = {case["name"]: case for case in json.load(f)["cases"]}
    crashed = cases.get("test_selfcheck_good", {})
    hung = cases.get("test_selfcheck_wrong_output", {})
    check(status == 1, "exit status 1 when a case crashed", failures)
    check(crashed.get("status") == "crash" and "crashed" in crashed.get("reason", ""),
          "an injected crash is reported as a crash: " + crashed.get("reason", "?"), failures)
    check(hung.get("status") == "crash" and "timed out" in hung.get("reason", ""),
          "an injected hang is reported as timed out: " + hung.get("reason", "?"), failures)
    check("0 passed, 0 failed, 0 unsupported, 2 crashed of 2 counted" in output,
          "the summary counts both as crashed", failures)


def run_selfcheck(runner, source):
    failures = []
    with tempfile.TemporaryDirectory(prefix="conformance_selfcheck_") as tmp:
        data_dir = os.path.join(tmp, "data")
        make_fixture(source, data_dir)
        json_path = os.path.join(tmp, "result.json")
        status, output = run_runner(runner, data_dir, "--json", json_path, "--min-pass-rate", "0.5")
        print(output.rstrip())
        check(status == 0, "exit status 0 when the pass rate (1 of 2) reaches 0.5", failures)
        check("conformance: 1 passed, 1 failed, 0 unsupported, 0 crashed of 2 counted (50.0%)"
              in output, "summary line counts one pass and one failure", failures)
        with open(json_path) as f:
            cases = {case["name"]: case for case in json.load(f)["cases"]}
        good = cases.get("test_selfcheck_good", {})
        wrong = cases.get("test_selfcheck_wrong_output", {})
        out_of_scope = cases.get("test_selfcheck_out_of_scope", {})
        check(good.get("status") == "pass", "the unaltered case passes", failures)
        check(wrong.get("status") == "fail" and "output 0" in wrong.get("reason", "")
              and "element 0" in wrong.get("reason", ""),
              "the altered case fails, naming output 0 element 0", failures)
        check(out_of_scope.get("counted") is False and "Acos" in out_of_scope.get("not_counted", ""),
              "the Acos case is listed as not counted, naming Acos", failures)
        status, _ = run_runner(runner, data_dir, "--min-pass-rate", "0.75")
        check(status == 1, "exit status 1 when the pass rate is below --min-pass-rate", failures)
        status, output = run_runner(runner, data_dir, "--filter", "good$", "--min-pass-rate", "1")
        check(status == 0 and "of 1 counted" in output, "--filter selects one case", failures)
        check_isolation(runner, data_dir, os.path.join(tmp, "isolation.json"), failures)
    print("runner self-check: " + ("passed" if not failures else f"{len(failures)} check(s) failed"))
    return 0 if not failures else 1


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("runner", nargs="?", help="path of the conformance_runner binary")
    parser.add_argument("--source", default=DEFAULT_SOURCE, help="the ONNX test data to copy")
    parser.add_argument("--make-fixture", metavar="DIR", help="only write the fixture into DIR")
    args = parser.parse_args()
    if args.make_fixture:
        make_fixture(args.source, args.make_fixture)
        return 0
    if not args.runner:
        parser.error("give the runner binary, or --make-fixture DIR")
    return run_selfcheck(args.runner, args.source)


if __name__ == "__main__":
    sys.exit(main())
