#!/usr/bin/env python3
"""Compiles dgatd's sources against another Kokkos' headers, for a Kokkos that has no matching
Kokkos Kernels (so CMake cannot configure dgatd with it).

    scripts/compile_against_kokkos.py REFERENCE_BUILD KOKKOS_INCLUDE_DIR [--std c++20] [--flag F ...]

Takes every compile command of REFERENCE_BUILD (a dgatd tree configured one source per translation
unit, -DDGATD_UNITY_BUILD=OFF; it need not be built), replaces that build's Kokkos and Kokkos Kernels
include directories with KOKKOS_INCLUDE_DIR, and compiles with the given standard, syntax only,
warnings still errors. A source that stops at a Kokkos Kernels header the new include path lacks, or
names Kokkos::Serial when the new Kokkos lacks it, cannot compile there and is listed as skipped.
Exits 1 if any other source fails.
"""

import argparse
import concurrent.futures
import json
import os
import re
import shlex
import subprocess
import sys


def kokkos_include_dirs(command):
    """The include directories of the reference build's Kokkos and Kokkos Kernels."""
    dirs = []
    words = shlex.split(command)
    for i, word in enumerate(words):
        path = None
        if word in ("-isystem", "-I") and i + 1 < len(words):
            path = words[i + 1]
        elif word.startswith("-I") and len(word) > 2:
            path = word[2:]
        if path and (os.path.exists(os.path.join(path, "Kokkos_Core.hpp")) or
                     os.path.exists(os.path.join(path, "KokkosKernels_config.h"))):
            dirs.append(path)
    return dirs


def rewrite(command, old_dirs, new_dir, std, flags):
    words = shlex.split(command)
    out = []
    skip_next = False
    replaced = False
    for i, word in enumerate(words):
        if skip_next:
            skip_next = False
            continue
        separate = word in ("-isystem", "-I") and i + 1 < len(words) and words[i + 1] in old_dirs
        if separate or (word.startswith("-I") and word[2:] in old_dirs):
            skip_next = separate
            if not replaced:
                out += ["-isystem", new_dir]
                replaced = True
            continue
        if word in ("-o", "-MF", "-MT", "-MQ"):
            skip_next = True
            continue
        if word in ("-MD", "-MMD"):
            continue
        if word.startswith("-std="):
            word = f"-std={std}"
        out.append(word)
    return out + flags + ["-fsyntax-only"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("reference_build")
    parser.add_argument("kokkos_include")
    parser.add_argument("--std", default="c++20")
    parser.add_argument("--flag", action="append", default=[], help="extra compiler flag (e.g. -fopenmp)")
    args = parser.parse_args()

    config = os.path.join(args.kokkos_include, "KokkosCore_config.h")
    try:
        with open(config) as f:
            has_serial = re.search(r"^#define KOKKOS_ENABLE_SERIAL\b", f.read(), re.M) is not None
        with open(os.path.join(args.reference_build, "compile_commands.json")) as f:
            entries = json.load(f)
    except OSError as e:
        print(f"compile_against_kokkos.py: {e}", file=sys.stderr)
        return 1

    jobs, skipped = [], []
    for entry in entries:
        source, command, directory = entry["file"], entry["command"], entry["directory"]
        if os.path.basename(source).startswith("unity_"):
            print(f"compile_against_kokkos.py: {args.reference_build} batches its sources ({source}); configure it "
                  "with -DDGATD_UNITY_BUILD=OFF", file=sys.stderr)
            return 1
        old_dirs = kokkos_include_dirs(command)
        if not old_dirs:
            print(f"compile_against_kokkos.py: no Kokkos include directory in the command for {source}", file=sys.stderr)
            return 1
        kk_dirs = [d for d in old_dirs if os.path.exists(os.path.join(d, "KokkosKernels_config.h"))]
        try:
            with open(source) as f:
                text = f.read()
        except OSError as e:
            print(f"compile_against_kokkos.py: {e}", file=sys.stderr)
            return 1
        if not has_serial and ("Kokkos::Serial" in text or "Kokkos::Serial" in command):
            skipped.append((source, "uses Kokkos::Serial, which this Kokkos lacks"))
        else:
            jobs.append((source, directory, kk_dirs, rewrite(command, old_dirs, args.kokkos_include, args.std, args.flag)))

    # The compiler stops at the first header it cannot find: a Kokkos Kernels one (the reference build
    # has it, the new include path not) means the source needs Kokkos Kernels, anything else fails.
    def missing_kernels_header(log, kk_dirs):
        match = re.search(r"fatal error: ([^:\s]+): No such file or directory", log)
        return match is not None and any(os.path.exists(os.path.join(d, match.group(1))) for d in kk_dirs)

    def compile_one(job):
        source, directory, kk_dirs, words = job
        result = subprocess.run(words, cwd=directory, capture_output=True, text=True)
        log = result.stdout + result.stderr
        return source, result.returncode, log, result.returncode != 0 and missing_kernels_header(log, kk_dirs)

    failed, compiled = [], 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        for source, status, log, needs_kernels in pool.map(compile_one, jobs):
            if needs_kernels:
                skipped.append((source, "includes Kokkos Kernels"))
            elif status != 0:
                failed.append(source)
                print(log, end="")
            else:
                compiled += 1
    if not jobs and not skipped:
        print(f"compile_against_kokkos.py: {args.reference_build} has no compile commands", file=sys.stderr)
        return 1
    root = os.path.commonpath([job[0] for job in jobs] + [s for s, _ in skipped])
    skipped.sort()
    for source, why in skipped:
        print(f"  skipped {os.path.relpath(source, root)}: {why}")
    print(f"{compiled} of {len(entries)} compile commands compiled "
          f"(-std={args.std}, warnings as errors), {len(skipped)} skipped, {len(failed)} failed")
    for source in failed:
        print(f"compile_against_kokkos.py: {source} does not compile against {args.kokkos_include}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
