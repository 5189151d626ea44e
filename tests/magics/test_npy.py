"""%save and %load: .npy round trips checked with numpy, dtypes
from C types, --shape and counts, big-endian and version 2.0 files, and
clear errors for malformed, truncated and unholdable files and paths that
cannot be written (nothing half-written). On a GPU: a device buffer saved."""
import os
import stat
import tempfile

import numpy as np

from support import error, needs_gpu, ok, shared_kernel, stdout_of, value

TYPES = [("float", "<f4"), ("double", "<f8"), ("signed char", "|i1"), ("short", "<i2"), ("int", "<i4"),
         ("long", "<i8"), ("unsigned char", "|u1"), ("unsigned short", "<u2"), ("unsigned int", "<u4"),
         ("unsigned long", "<u8"), ("long long", "<i8"), ("bool", "|b1"), ("size_t", "<u8")]


def test_save_every_dtype_and_read_with_numpy():
    with tempfile.TemporaryDirectory() as d, shared_kernel() as k:
        for i, (ctype, descr) in enumerate(TYPES):
            ok(k, f"{ctype} a{i}[5] = {{0, 1, 2, 3, {1 if ctype == 'bool' else 100}}};")
            out = stdout_of(ok(k, f"%save {d}/a{i}.npy a{i}"))
            assert f"to {d}/a{i}.npy" in out and "shape (5,)" in out, out
            arr = np.load(f"{d}/a{i}.npy")
            assert arr.dtype == np.dtype(descr), (ctype, arr.dtype)
            want = [0, 1, 1, 1, 1] if ctype == "bool" else [0, 1, 2, 3, 100]
            assert arr.tolist() == want, (ctype, arr.tolist())
            # the header is padded to 64 bytes, as numpy writes it
            raw = open(f"{d}/a{i}.npy", "rb").read()
            hl = int.from_bytes(raw[8:10], "little")
            assert raw[:8] == b"\x93NUMPY\x01\x00" and (10 + hl) % 64 == 0 and raw[9 + hl:10 + hl] == b"\n"
        assert not [f for f in os.listdir(d) if ".tmp" in f]


def test_counts_shapes_and_round_trip():
    with tempfile.TemporaryDirectory() as d, shared_kernel() as k:
        ok(k, "int n = 12; float *m = (float *)malloc(n * sizeof(float)); for (int i = 0; i < n; i++) m[i] = i * 0.5f;")
        ok(k, f"%save {d}/m.npy m --shape 3,4")
        a = np.load(f"{d}/m.npy")
        assert a.shape == (3, 4) and a[2, 3] == 5.5 and a.flags["C_CONTIGUOUS"]
        ok(k, f"%save {d}/part.npy m n/2")
        assert np.load(f"{d}/part.npy").tolist() == [i * 0.5 for i in range(6)]
        ok(k, f"%save {d}/s.npy m 6 --shape 2,3")
        assert np.load(f"{d}/s.npy").shape == (2, 3)
        ok(k, f"%save {d}/first.npy m --shape 2,2")  # --shape alone takes what it needs
        assert np.load(f"{d}/first.npy").tolist() == [[0, 0.5], [1, 1.5]]
        # numpy -> icuda: the values, the dtype's C type, the shape
        np.save(f"{d}/np.npy", (np.arange(24, dtype=np.float64) * 1.5).reshape(2, 3, 4))
        out = stdout_of(ok(k, f"%load w {d}/np.npy"))
        assert "w: double[24] on the host, shape (2, 3, 4) in w_shape" in out, out
        assert value(k, "w[23]") == "(double) 34.5"
        assert value(k, "w_shape[0] * 100 + w_shape[1] * 10 + w_shape[2]") == "(long) 234"
        # icuda -> numpy -> icuda
        ok(k, f"%load back {d}/m.npy")
        assert value(k, "back[11] == m[11] && back_shape[1] == 4") in ("(int) 1", "(bool) true")
        # big-endian, a 0-d array, version 2.0 and a Fortran-ordered vector
        np.save(f"{d}/be.npy", np.arange(5, dtype=">i4"))
        ok(k, f"%load be {d}/be.npy")
        assert value(k, "be[4]") == "(int) 4"
        np.save(f"{d}/zero.npy", np.float32(7))
        ok(k, f"%load z {d}/zero.npy")
        assert value(k, "z[0] + z_shape[0]") == "(float) 8"
        np.lib.format.write_array(open(f"{d}/v2.npy", "wb"), np.arange(3, dtype=np.uint8), version=(2, 0))
        ok(k, f"%load v2 {d}/v2.npy")
        assert value(k, "(int)v2[2] + sizeof(v2[0])") == "(unsigned long) 3"
        # a long shape header is still a 1.0 file numpy reads
        ok(k, "unsigned char big[70000];")
        ok(k, f"%save {d}/big.npy big")
        assert np.load(f"{d}/big.npy").shape == (70000,)


def test_errors_lose_nothing():
    with tempfile.TemporaryDirectory() as d, shared_kernel() as k:
        ok(k, "float v[4] = {1, 2, 3, 4}; long double ld[2]; int x = 1;")
        open(f"{d}/keep.npy", "wb").write(b"precious")
        for cell, ename, words in [
            ("%save", "UsageError", "a file name and an array"),
            (f"%save {d}/o.npy", "UsageError", "a file name and an array"),
            (f"%save {d}/o.npy v 2 3", "UsageError", "too many"),
            (f"%save {d}/o.npy v --shape", "UsageError", "--shape takes whole numbers"),
            (f"%save {d}/o.npy v --shape 2,x", "UsageError", "--shape takes whole numbers"),
            (f"%save {d}/o.npy v --shape 3,3", "UsageError", "holds 9 elements, but 4 are saved"),
            (f"%save {d}/o.npy v 2 --shape 3", "UsageError", "holds 3 elements, but 2"),
            (f"%save {d}/o.npy v 9", "ValueError", "room for only 4"),
            (f"%save {d}/o.npy x", "TypeError", "not an array or a pointer"),
            (f"%save {d}/o.npy ld", "TypeError", "only numbers"),
            (f"%save {d}/no/such/dir/o.npy v", "OSError", "cannot write"),
            (f"%save {d}/keep.npy/o.npy v", "OSError", "cannot write"),
            ("%load v", "UsageError", "a variable name and a .npy file"),
            (f"%load 2bad {d}/keep.npy", "UsageError", "not a C variable name"),
            (f"%load q {d}/missing.npy", "OSError", "cannot read"),
            (f"%load q {d}/keep.npy", "ValueError", "does not start with"),
        ]:
            c = error(k, cell)
            assert c["ename"] == ename and words in c["evalue"], (cell, c["ename"], c["evalue"])
        assert open(f"{d}/keep.npy", "rb").read() == b"precious"
        assert sorted(os.listdir(d)) == ["keep.npy"], os.listdir(d)  # nothing half-written
        good = f"{d}/good.npy"
        np.save(good, np.arange(6, dtype=np.int32).reshape(2, 3))
        raw = open(good, "rb").read()
        bad = [("trunc.npy", raw[:-5], "truncated: its shape needs 24 bytes of data, it has 19"),
               ("head.npy", raw[:40], "ends inside its header"),
               ("ver.npy", raw[:6] + b"\x09" + raw[7:], "unknown format version"),
               ("nokeys.npy", raw.replace(b"'shape'", b"'shapf'"), "lacks descr, fortran_order or shape"),
               # a shape whose product wraps 64 bits, or is past any host buffer
               ("wrap.npy", raw.replace(b"(2, 3)", b"(4294967296, 4294967296)"), "holds more data than a host buffer"),
               ("huge.npy", raw.replace(b"(2, 3)", b"(2305843009213693952,)"), "holds more data than a host buffer")]
        for name, data, words in bad:
            open(f"{d}/{name}", "wb").write(data)
            c = error(k, f"%load q {d}/{name}")
            assert c["ename"] == "ValueError" and words in c["evalue"], (name, c["evalue"])
        for arr, words in [(np.zeros(2, dtype=np.float16), "dtype <f2"), (np.zeros(2, dtype=np.complex64), "dtype <c8"),
                           (np.zeros(2, dtype=[("a", "<i4")]), "structured dtype")]:
            np.save(f"{d}/t.npy", arr)
            c = error(k, f"%load q {d}/t.npy")
            assert words in c["evalue"], c["evalue"]
        np.save(f"{d}/f.npy", np.asfortranarray(np.zeros((2, 3))))
        c = error(k, f"%load q {d}/f.npy")
        assert "Fortran order" in c["evalue"], c["evalue"]
        # nothing was declared by the failures, the session goes on
        c = error(k, "q")
        assert "undeclared" in c["evalue"]
        assert value(k, "v[3]") == "(float) 4"


def test_load_reads_only_regular_files_within_the_limits():
    # every one a clear error at once: nothing read past what decides it, the session intact
    with tempfile.TemporaryDirectory() as d, shared_kernel() as k:
        ok(k, "float v[4] = {1, 2, 3, 4};")
        os.mkfifo(f"{d}/f.npy")  # its open would wait for a writer
        with open(f"{d}/sparse.npy", "wb") as f:  # 100 GB of nothing, no header
            f.truncate(100 << 30)
        with open(f"{d}/big.npy", "wb") as f:  # a true header, then 100 GB of data
            np.lib.format.write_array_header_1_0(f, {"descr": "<f4", "fortran_order": False,
                                                     "shape": (25 * 10 ** 9,)})
            f.truncate(100 << 30)
        with open(f"{d}/longhead.npy", "wb") as f:  # a 2 MiB header (format 2.0)
            dict_ = b"{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }"
            body = dict_ + b" " * ((2 << 20) - 12 - len(dict_) - 1) + b"\n"
            f.write(b"\x93NUMPY\x02\x00" + len(body).to_bytes(4, "little") + body + b"\0\0\0\0")
        for cell, ename, words in [
            ("%load q /dev/zero", "OSError", "cannot read /dev/zero: it is not a regular file (a character device)"),
            (f"%load q {d}/f.npy", "OSError", "it is not a regular file (a pipe)"),
            (f"%load q {d}", "OSError", "it is not a regular file (a directory)"),
            (f"%load q {d}/sparse.npy", "ValueError", "does not start with"),
            (f"%load q {d}/big.npy", "MemoryError", "holds 93.1 GiB of data, more than the"),
            (f"%load q {d}/longhead.npy", "ValueError", "its header is 2097152 bytes, more than the 1048576 read"),
        ]:
            c = error(k, cell)
            assert c["ename"] == ename and words in c["evalue"], (cell, c["ename"], c["evalue"])
        assert "undeclared" in error(k, "q")["evalue"]
        assert value(k, "v[3]") == "(float) 4"
        # a good file still loads, its data read past the header's first read
        np.save(f"{d}/good.npy", np.arange(600000, dtype=">i4"))
        ok(k, f"%load g {d}/good.npy")
        assert value(k, "g[599999]") == "(int) 599999"


def test_save_writes_through_links_and_never_replaces_a_special_file():
    # the save's temporary file is renamed into place: into a link's target,
    # and never over a device or a pipe (%save /dev/null as root replaced it)
    with tempfile.TemporaryDirectory() as d, shared_kernel() as k:
        ok(k, "float v[3] = {1, 2, 3};")
        os.makedirs(f"{d}/real")
        os.symlink(f"{d}/real/target.npy", f"{d}/link.npy")
        ok(k, f"%save {d}/link.npy v")
        assert os.path.islink(f"{d}/link.npy")
        assert np.load(f"{d}/real/target.npy").tolist() == [1, 2, 3]
        os.mkfifo(f"{d}/pipe")
        for target, words in [(f"{d}/pipe", "not a regular file (a pipe)"), (d, "not a regular file (a directory)")]:
            c = error(k, f"%save {target} v")
            assert c["ename"] == "OSError" and words in c["evalue"], c["evalue"]
        assert stat.S_ISFIFO(os.stat(f"{d}/pipe").st_mode)
        assert sorted(os.listdir(d)) == ["link.npy", "pipe", "real"], os.listdir(d)
        assert value(k, "v[2]") == "(float) 3"


@needs_gpu
def test_save_a_device_buffer():
    with tempfile.TemporaryDirectory() as d, shared_kernel() as k:
        ok(k, "__global__ void iota(double *p, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) p[i] = i; }")
        ok(k, "int n = 1 << 20; double *dp; cudaMalloc(&dp, n * sizeof(double)); iota<<<n / 256, 256>>>(dp, n);")
        out = stdout_of(ok(k, f"%save {d}/dev.npy dp --shape 1024,1024"))
        assert "shape (1024, 1024)" in out, out
        a = np.load(f"{d}/dev.npy")
        assert a.dtype == np.float64 and a.shape == (1024, 1024) and a[1023, 1023] == n_last()
        ok(k, f"%save {d}/dev10.npy dp 10")
        assert np.load(f"{d}/dev10.npy").tolist() == list(range(10))


def n_last():
    return float((1 << 20) - 1)
