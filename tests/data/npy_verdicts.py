"""numpy's verdicts on hand-written .npy/.npz files: the table tests/data/npy_verdicts.jsonl.

Run with numpy 2.x installed (`pip install numpy`):

    python3 tests/data/npy_verdicts.py > tests/data/npy_verdicts.jsonl

Each case is a whole file (header and data, hex), read the way a user loads an untrusted
array: `np.load(path, allow_pickle=False)`, and for an .npz every member read. A row holds
numpy's verdict (the arrays it read: name, shape, dtype; or its error), and, where this
crate's reader answers differently on purpose, `differs` with the reason. The Rust test
tests/it/npy_verdicts.rs holds the reader to every row, and the `npy` fuzz target mutates
the accepted rows in ways that keep numpy's verdict.
"""

import io
import json
import os
import sys
import tempfile
import zipfile

import numpy as np

MAGIC = b"\x93NUMPY"


def npy(header, version=(1, 0), data=0, pad=True, raw=None):
    """A .npy file: `header` (str, encoded latin-1 for v1/v2 and utf-8 for v3) padded with
    spaces and a newline to 64 bytes as numpy writes it (unless `pad` is False), then `data`
    zero bytes (or the bytes themselves)."""
    if raw is not None:
        text = raw
    else:
        text = header.encode("utf-8" if version[0] == 3 else "latin-1")
    if pad:
        fixed = 6 + 2 + (2 if version[0] == 1 else 4)
        total = fixed + len(text) + 1
        text = text + b" " * ((64 - total % 64) % 64) + b"\n"
    length = len(text).to_bytes(2 if version[0] == 1 else 4, "little")
    body = data if isinstance(data, bytes) else bytes(data)
    return MAGIC + bytes(version) + length + text + body


def npz(members):
    """An .npz archive of (name, bytes) members, stored."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as z:
        for name, data in members:
            z.writestr(name, data)
    return out.getvalue()


def h(descr="'<f4'", fortran="False", shape="(2, 3)"):
    return "{'descr': %s, 'fortran_order': %s, 'shape': %s, }" % (descr, fortran, shape)


# (name, file bytes, extension, reason the reader differs on purpose or None)
CASES = [
    # What numpy writes.
    ("f4_2x3", npy(h(), data=24), "npy", None),
    ("scalar", npy(h(shape="()"), data=4), "npy", None),
    ("fortran", npy(h(fortran="True"), data=24), "npy", None),
    ("v2", npy(h(), version=(2, 0), data=24), "npy", None),
    ("v3", npy(h(), version=(3, 0), data=24), "npy", None),
    ("empty", npy(h(shape="(0, 3)")), "npy", None),
    ("one_dim", npy(h(shape="(5,)"), data=20), "npy", None),
    ("big_endian_f8", npy(h(descr="'>f8'", shape="(2,)"), data=16), "npy", None),
    ("bool", npy(h(descr="'|b1'", shape="(3,)"), data=3), "npy", None),
    ("u1", npy(h(descr="'|u1'", shape="(3,)"), data=3), "npy", None),
    ("f2", npy(h(descr="'<f2'", shape="(3,)"), data=6), "npy", None),
    ("c16", npy(h(descr="'<c16'", shape="(2,)"), data=32), "npy", None),
    ("i8", npy(h(descr="'<i8'", shape="(2,)"), data=16), "npy", None),
    ("bytes_s5", npy(h(descr="'|S5'", shape="(2,)"), data=10), "npy", None),
    ("unicode_u3", npy(h(descr="'<U3'", shape="(2,)"), data=24), "npy", None),
    ("datetime", npy(h(descr="'<M8[ns]'", shape="(2,)"), data=16), "npy", None),
    ("void_v4", npy(h(descr="'|V4'", shape="(2,)"), data=8), "npy", None),
    ("structured", npy(h(descr="[('a', '<i4'), ('b', '<f8')]", shape="(2,)"), data=24), "npy", None),
    ("structured_subarray", npy(h(descr="[('a', '<i4', (2, 3))]", shape="(2,)"), data=48), "npy", None),
    ("structured_padding", npy(h(descr="[('a', '<i4'), ('', '|V4'), ('b', '<f8')]", shape="(1,)"), data=16), "npy", None),
    ("trailing_data", npy(h(), data=30), "npy", None),
    ("no_padding", npy(h(), pad=False, data=24), "npy", None),
    ("no_spaces", npy("{'descr':'<f4','fortran_order':False,'shape':(2,3)}", data=24), "npy", None),
    ("key_order", npy("{'shape': (2, 3), 'descr': '<f4', 'fortran_order': False}", data=24), "npy", None),
    ("double_quotes", npy('{"descr": "<f4", "fortran_order": False, "shape": (2, 3)}', data=24), "npy", None),
    ("trailing_comma_shape", npy(h(shape="(2, 3,)"), data=24), "npy", None),
    ("duplicate_key", npy("{'descr': '<i8', 'descr': '<f4', 'fortran_order': False, 'shape': (2, 3)}", data=24), "npy", None),
    ("python2_long", npy(h(shape="(2L, 3L)"), data=24), "npy", None),
    # Refused by numpy: the header.
    ("list_shape", npy(h(shape="[2, 3]"), data=24), "npy", None),
    ("int_shape", npy(h(shape="(5)"), data=20), "npy", None),
    ("text_after_brace", npy(h() + " x", data=24), "npy", None),
    ("version_1_5", npy(h(), version=(1, 5), data=24), "npy", None),
    ("version_4", npy(h(), version=(4, 0), data=24), "npy", None),
    ("descr_zz", npy(h(descr="'<zz'"), data=24), "npy", None),
    ("descr_int", npy(h(descr="5"), data=24), "npy", None),
    ("leading_zero", npy(h(shape="(010,)"), data=40), "npy", None),
    ("dim_past_i64_beside_0", npy(h(shape="(0, 99999999999999999999)")), "npy", None),
    ("dim_past_i64", npy(h(shape="(99999999999999999999,)")), "npy", None),
    ("float_dim", npy(h(shape="(2.0,)"), data=8), "npy", None),
    ("nested_shape", npy(h(shape="((2, 3),)"), data=24), "npy", None),
    ("fortran_int", npy(h(fortran="0"), data=24), "npy", None),
    ("missing_key", npy("{'descr': '<f4', 'shape': (2, 3)}", data=24), "npy", None),
    ("extra_key", npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), 'x': 1}", data=24), "npy", None),
    ("not_a_dict", npy("('<f4', False, (2, 3))", data=24), "npy", None),
    ("object", npy(h(descr="'|O'", shape="(2,)"), data=16), "npy", None),
    ("structured_object", npy(h(descr="[('a', '|O')]", shape="(2,)"), data=16), "npy", None),
    ("descr_bytes", npy(h(descr="b'<f4'"), data=24), "npy", None),
    ("bool_wide", npy(h(descr="'|b2'", shape="(2,)"), data=4), "npy", None),
    ("unterminated", npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3", data=24), "npy", None),
    ("header_past_file", MAGIC + bytes([1, 0]) + (500).to_bytes(2, "little") + b"{}", "npy", None),
    ("python2_long_v3", npy(h(shape="(2L, 3L)"), version=(3, 0), data=24), "npy", None),
    # Refused by numpy: the data.
    ("short_data", npy(h(), data=23), "npy", None),
    ("no_data", npy(h()), "npy", None),
    ("structured_short", npy(h(descr="[('a', '<i4'), ('b', '<f8')]", shape="(2,)"), data=23), "npy", None),
    ("npz_short_member", npz([("w.npy", npy(h(), data=20))]), "npz", None),
    # Read by numpy: Python's literal syntax.
    ("hex_dim", npy(h(shape="(0x2, 3)"), data=24), "npy", None),
    ("underscore_dim", npy(h(shape="(1_0,)"), data=40), "npy", None),
    ("comment_after_brace", npy(h() + "  # a comment", data=24), "npy", None),
    ("latin1_v1", npy(h() + "  # caf\xe9", data=24), "npy", None),
    ("utf8_v3", npy(h() + "  # caf\u00e9 \u2713", version=(3, 0), data=24), "npy", None),
    ("string_concat", npy(h(descr="'<' 'f4'"), data=24), "npy", None),
    ("string_escape", npy(h(descr="'\\x3cf4'"), data=24), "npy", None),
    ("unary_plus", npy(h(shape="(+2, 3)"), data=24), "npy", None),
    ("bool_dim", npy(h(shape="(True, 3)"), data=12), "npy", None),
    ("negative_dim", npy(h(shape="(-1,)"), data=8), "npy", None),
    ("leading_space", npy("  " + h(), data=24), "npy", None),
    # descr spellings numpy's writer does not use.
    ("descr_no_order", npy(h(descr="'f4'"), data=24), "npy", None),
    ("descr_pipe_f4", npy(h(descr="'|f4'"), data=24), "npy", None),
    ("descr_native_f4", npy(h(descr="'=f4'"), data=24), "npy", None),
    ("descr_bang", npy(h(descr="'!f4'"), data=24), "npy", None),
    ("descr_char", npy(h(descr="'<f'"), data=24), "npy", None),
    ("descr_char_d", npy(h(descr="'d'"), data=48), "npy", None),
    ("descr_name", npy(h(descr="'float32'"), data=24), "npy", None),
    ("descr_comma", npy(h(descr="'i4,f8'", shape="(2,)"), data=24), "npy", None),
    ("descr_subarray_tuple", npy(h(descr="('<f4', (2,))", shape="(3,)"), data=24), "npy", None),
    ("descr_a5", npy(h(descr="'|a5'", shape="(2,)"), data=10), "npy", None),
    ("descr_s0", npy(h(descr="'|S0'", shape="(2,)")), "npy", None),
    ("descr_f12", npy(h(descr="'<f12'", shape="(2,)"), data=24), "npy", None),
    ("descr_f16", npy(h(descr="'<f16'", shape="(2,)"), data=32), "npy", None),
    ("descr_i3", npy(h(descr="'<i3'", shape="(2,)"), data=6), "npy", None),
    ("datetime_generic", npy(h(descr="'<M8'", shape="(2,)"), data=16), "npy", None),
    ("datetime_multiple", npy(h(descr="'<m8[10ms]'", shape="(2,)"), data=16), "npy", None),
    ("datetime_bad_unit", npy(h(descr="'<M8[xx]'", shape="(2,)"), data=16), "npy", None),
    ("structured_title", npy(h(descr="[(('T', 'a'), '<i4')]", shape="(2,)"), data=8), "npy", None),
    ("structured_dup_names", npy(h(descr="[('a', '<i4'), ('a', '<f8')]", shape="(1,)"), data=12), "npy", None),
    ("structured_int_shape", npy(h(descr="[('a', '<i4', 3)]", shape="(1,)"), data=12), "npy", None),
    ("structured_nested", npy(h(descr="[('a', [('b', '<i2'), ('c', '<i2')])]", shape="(1,)"), data=4), "npy", None),
    ("structured_empty", npy(h(descr="[]", shape="(2,)")), "npy", None),
    ("structured_bad_field", npy(h(descr="[('a',)]", shape="(1,)"), data=4), "npy", None),
    ("structured_empty_name", npy(h(descr="[('', '<i4')]", shape="(1,)"), data=4), "npy", None),
    ("zero_beside_huge_product", npy(h(shape="(0, 4611686018427387904, 4)")), "npy", None),
    ("product_past_i64", npy(h(shape="(4294967296, 4294967296)")), "npy", None),
    ("octal_binary", npy(h(shape="(0o2, 0b11)"), data=24), "npy", None),
    ("zeros_dim", npy(h(shape="(00, 3)")), "npy", None),
    ("double_minus", npy(h(shape="(--2, 3)"), data=24), "npy", None),
    ("python2_long_space", npy(h(shape="(2 L, 3)"), data=24), "npy", None),
    ("leading_space_v3", npy("  " + h(), version=(3, 0), data=24), "npy", None),
    ("leading_newline", npy("\n" + h(), data=24), "npy", None),
    ("triple_quoted", npy(h(descr="'''<f4'''"), data=24), "npy", None),
    ("raw_string", npy(h(descr="r'<f4'"), data=24), "npy", None),
    ("set_not_dict", npy("{'descr', 'fortran_order', 'shape'}", data=24), "npy", None),
    ("tab_and_formfeed", npy(h().replace(" ", "\t"), data=24), "npy", None),
    ("underscore_bad", npy(h(shape="(1__0,)"), data=40), "npy", None),
    ("line_continuation", npy("{'descr': '<f4', \\\n'fortran_order': False, 'shape': (2, 3)}", data=24), "npy", None),
    # .npz archives.
    ("npz_two", npz([("a.npy", npy(h(), data=24)), ("b.npy", npy(h(shape="(4,)"), data=16))]), "npz", None),
    ("npz_non_array_member", npz([("a.npy", npy(h(), data=24)), ("notes.txt", b"hello")]), "npz", None),
    ("npz_bad_member", npz([("a.npy", npy(h(descr="'<zz'"), data=24))]), "npz", None),
    ("npz_trailing_member_data", npz([("a.npy", npy(h(), data=32))]), "npz", None),
    # Headers longer than numpy's 10,000-byte limit for untrusted files.
    ("long_header", npy(h() + " " * 12000, data=24), "npy", None),
]

# Where the reader answers differently on purpose, and why (each also in the docs of
# shapes-core/src/source/checkpoint/npy.rs).
DIFFERS = {
    "long_header": "numpy refuses headers over 10,000 bytes from an untrusted file (its "
    "max_header_size, which bounds literal_eval); this reader parses no Python and reads "
    "headers up to 1 MiB, which structured dtypes with many fields need",
    "descr_name": "numpy takes any name np.dtype knows ('float32'); its writer never writes "
    "one, and this reader takes the type strings it writes",
    "descr_comma": "numpy takes a comma list of types ('i4,f8') as a structured dtype; its "
    "writer never writes one (it writes a list of fields), and this reader refuses it",
}


def verdict(data, ext):
    fd, path = tempfile.mkstemp(suffix="." + ext)
    os.write(fd, data)
    os.close(fd)
    try:
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            loaded = np.load(path, allow_pickle=False)
            if ext == "npz":
                with loaded as f:
                    arrays = []
                    for k in f.files:
                        a = f[k]
                        if isinstance(a, np.ndarray):
                            arrays.append({"name": k, "shape": list(a.shape), "dtype": a.dtype.str})
            else:
                arrays = [{"name": "array", "shape": list(loaded.shape), "dtype": loaded.dtype.str}]
        return {"ok": True, "arrays": arrays}
    except Exception as e:  # noqa: BLE001 - every refusal is a verdict
        return {"ok": False, "error": f"{type(e).__name__}: {str(e)[:200]}"}
    finally:
        os.unlink(path)


def main():
    names = set()
    for name, data, ext, _ in CASES:
        assert name not in names, name
        names.add(name)
        row = {"case": name, "ext": ext, "numpy": verdict(data, ext)}
        if name in DIFFERS:
            row["differs"] = DIFFERS[name]
        row["file"] = data.hex()
        sys.stdout.write(json.dumps(row) + "\n")
    sys.stderr.write(f"{len(CASES)} cases, numpy {np.__version__}\n")


if __name__ == "__main__":
    main()
