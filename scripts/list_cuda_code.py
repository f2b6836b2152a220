#!/usr/bin/env python3
"""Lists the GPU code a CUDA executable or object file carries.

    scripts/list_cuda_code.py BINARY [--require CODE ...] [--codes]

Reads the ELF's .nv_fatbin section, where nvcc puts one fatbinary per translation unit, and prints
each kind of entry it holds: machine code (ELF, "sm_90") or PTX ("compute_90"), with how many
fatbinaries carry it (one per translation unit with device code, plus nvcc's device-link stub). With --require, exits 1 naming what is missing. Written because the
cuobjdump of Debian's CUDA 11.8 cannot list the code of a whole linked executable. --codes prints
only the codes, in the form dgatd's CMake reports them ("sm_80 sm_90 compute_80 compute_90":
machine code, then PTX, each in ascending order), for comparing the two.

Fatbinary layout (little-endian), checked against nvcc 11.8 output and cuobjdump on object files:
  container header, 16 bytes: u32 magic 0xBA55ED50, u16 version, u16 header size,
                              u64 size of the entries that follow
  entry header: u16 kind (1 PTX, 2 ELF) at 0, u32 header size at 4, u64 payload size padded to
                8 bytes at 8, u32 architecture (80 for sm_80 / compute_80) at 28;
                the payload follows the entry header, the next entry follows the payload.
"""

import argparse
import struct
import sys
from collections import Counter

FATBIN_MAGIC = 0xBA55ED50
KIND_NAMES = {1: "PTX", 2: "ELF"}


class FormatError(Exception):
    pass


def read_section(path, wanted):
    """Returns the bytes of the named section of a 64-bit little-endian ELF file, or None."""
    with open(path, "rb") as f:
        ident = f.read(64)
        if len(ident) < 64 or ident[:4] != b"\x7fELF":
            raise FormatError("not an ELF file")
        if ident[4] != 2 or ident[5] != 1:
            raise FormatError("not a 64-bit little-endian ELF file")
        shoff, = struct.unpack_from("<Q", ident, 0x28)
        shentsize, shnum, shstrndx = struct.unpack_from("<HHH", ident, 0x3A)
        if shoff == 0 or shnum == 0:
            raise FormatError("the ELF file has no section table")
        f.seek(shoff)
        table = f.read(shentsize * shnum)
        if len(table) < shentsize * shnum:
            raise FormatError("the ELF section table is truncated")
        sections = []
        for i in range(shnum):
            name, _, _, _, offset, size = struct.unpack_from("<IIQQQQ", table, i * shentsize)
            sections.append((name, offset, size))
        _, names_offset, names_size = sections[shstrndx]
        f.seek(names_offset)
        names = f.read(names_size)
        for name, offset, size in sections:
            end = names.find(b"\0", name)
            if names[name:end].decode("ascii", "replace") == wanted:
                f.seek(offset)
                data = f.read(size)
                if len(data) < size:
                    raise FormatError(f"section {wanted} is truncated")
                return data
    return None


def fatbin_entries(data):
    """Yields (kind, arch) for every entry of every fatbinary container in data."""
    position = 0
    while position + 16 <= len(data):
        magic, _, header_size, entries_size = struct.unpack_from("<IHHQ", data, position)
        if magic != FATBIN_MAGIC:
            # The linker pads the concatenated containers to their alignment with zeros.
            if magic == 0:
                position += 8
                continue
            raise FormatError(f"no fatbinary magic at offset {position:#x} of .nv_fatbin")
        entry = position + header_size
        end = entry + entries_size
        if end > len(data):
            raise FormatError(f"fatbinary container at offset {position:#x} runs past .nv_fatbin")
        while entry + 32 <= end:
            kind, = struct.unpack_from("<H", data, entry)
            entry_header_size, padded_payload_size = struct.unpack_from("<IQ", data, entry + 4)
            arch, = struct.unpack_from("<I", data, entry + 28)
            if entry_header_size == 0:
                raise FormatError(f"fatbinary entry at offset {entry:#x} has an empty header")
            yield kind, arch
            entry += entry_header_size + padded_payload_size
        position = end


def code_name(kind, arch):
    if kind == 2:
        return f"sm_{arch}"
    if kind == 1:
        return f"compute_{arch}"
    return f"kind{kind}_{arch}"


def main():
    parser = argparse.ArgumentParser(description="List the GPU code (ELF / PTX per architecture) in a CUDA binary.")
    parser.add_argument("binary")
    parser.add_argument("--require", nargs="+", default=[], metavar="CODE",
                        help="exit 1 unless each of these is present, e.g. sm_80 sm_90 compute_90")
    parser.add_argument("--codes", action="store_true",
                        help="print only the codes on one line: machine code, then PTX, ascending")
    args = parser.parse_args()

    try:
        data = read_section(args.binary, ".nv_fatbin")
        if data is None:
            raise FormatError("no .nv_fatbin section: it holds no CUDA device code")
        counts = Counter(fatbin_entries(data))
    except (OSError, FormatError) as e:
        print(f"list_cuda_code.py: {args.binary}: {e}", file=sys.stderr)
        return 1

    ordered = sorted(counts.items(), key=lambda item: (-item[0][0], item[0][1]))
    if args.codes:
        print(" ".join(code_name(kind, arch) for (kind, arch), _ in ordered))
    else:
        print(f"{args.binary}: GPU code in .nv_fatbin")
        for (kind, arch), count in ordered:
            print(f"  {KIND_NAMES.get(kind, '?'):3}  {code_name(kind, arch):12} in {count} fatbinaries")
    present = {code_name(kind, arch) for kind, arch in counts}
    missing = [code for code in args.require if code not in present]
    if missing:
        print(f"list_cuda_code.py: {args.binary} lacks {' '.join(missing)} "
              f"(has {' '.join(sorted(present))})", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
