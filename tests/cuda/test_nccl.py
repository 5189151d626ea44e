"""NCCL in host code without a GPU (CI): nccl.h's types, constants and
ncclGetErrorString as host cells see them, and the checks that need no
worker: what would wait forever in one session (ncclCommInitRank of one
rank of several outside a group), arguments NCCL would refuse, handles the
session did not make, groups ended without a start, a group dropped when
one of its calls is refused or its cell fails, and the clear "no GPU" error
of a call that needs the worker. tests/gpu/test_multi_gpu.py runs NCCL on
GPUs; tests/unit/test_nccl_group.c checks the group rules themselves."""
import unittest

import support
from support import err, ok, shared_kernel, stdout_of

INVALID_USAGE = "ncclInvalidUsage"
INVALID_ARGUMENT = "ncclInvalidArgument"


def nccl_built(k):
    """icuda knows nccl.h only where it was found at build time."""
    c, msgs = support.run(k, "#include <nccl.h>\nprintf(\"%d\\n\", NCCL_VERSION_CODE);")
    if c["status"] != "ok":
        raise unittest.SkipTest("icuda was built without nccl.h")
    return int(stdout_of(msgs).strip())


def test_nccl_types_constants_and_error_strings():
    with shared_kernel() as k:
        version = nccl_built(k)
        assert version >= 2000, version
        out = stdout_of(ok(k, """ncclUniqueId id; ncclComm_t comm = NCCL_COMM_NULL;
printf("%zu %zu %d %d %d %d\\n", sizeof(ncclUniqueId), sizeof comm, ncclFloat32, ncclFloat, ncclSum, ncclAvg);
printf("%d %d %d %d\\n", ncclSuccess, ncclInvalidArgument, ncclInvalidUsage, NCCL_UNIQUE_ID_BYTES);
ncclConfig_t cfg = NCCL_CONFIG_INITIALIZER;
printf("%d %d\\n", cfg.magic == 0xcafebeef, cfg.blocking == NCCL_CONFIG_UNDEF_INT);
printf("%s|%s\\n", ncclGetErrorString(ncclSuccess), ncclGetErrorString(ncclInvalidUsage));"""))
        lines = out.splitlines()
        assert lines[0] == "128 8 7 7 0 4", out
        assert lines[1] == "0 4 5 128", out
        assert lines[2] == "1 1", out
        assert lines[3] == "no error|invalid usage (run with NCCL_DEBUG=WARN for details)", out


def test_what_would_wait_forever_is_refused():
    with shared_kernel() as k:
        nccl_built(k)
        ok(k, "ncclComm_t comms[2]; ncclUniqueId id; memset(&id, 7, sizeof id);")
        e, v = err(k, "ncclCommInitRank(&comms[0], 2, id, 0);")
        assert e == INVALID_USAGE and "waits until all 2 ranks have joined" in v and "ncclGroupStart()" in v, (e, v)
        e, v = err(k, "ncclCommInitRank(&comms[0], 2, id, 2);")
        assert e == INVALID_ARGUMENT and "rank is 2" in v, (e, v)
        e, v = err(k, "ncclCommInitRank(&comms[0], 0, id, 0);")
        assert e == INVALID_ARGUMENT and "nranks is 0" in v, (e, v)
        e, v = err(k, "ncclCommInitAll(comms, 3, NULL);")
        assert e == INVALID_ARGUMENT and "room for 2 communicators" in v, (e, v)


def test_communicators_the_session_did_not_make_never_reach_nccl():
    with shared_kernel() as k:
        nccl_built(k)
        ok(k, "float *x = 0;")
        e, v = err(k, "ncclAllReduce(x, x, 10, ncclFloat, ncclSum, (ncclComm_t)0x1234, 0);")
        assert e == INVALID_ARGUMENT and "not a communicator this session made" in v, (e, v)
        e, v = err(k, "ncclAllReduce(x, x, 10, ncclFloat, ncclSum, NULL, 0);")
        assert e == INVALID_ARGUMENT and "is NULL" in v, (e, v)
        e, v = err(k, "int n; ncclCommCount((ncclComm_t)0x42, &n);")
        assert e == INVALID_ARGUMENT, (e, v)


def test_groups_end_what_they_start_and_drop_what_fails():
    with shared_kernel() as k:
        nccl_built(k)
        e, v = err(k, "ncclGroupEnd();")
        assert e == INVALID_USAGE and "no group is open" in v, (e, v)
        ok(k, "ncclComm_t comms[2]; ncclUniqueId id; memset(&id, 3, sizeof id);")
        # a refused call in an open group drops the group: the next end has none
        e, v = err(k, "ncclGroupStart();\nncclCommInitRank(&comms[0], 2, id, 0);\nncclCommInitRank(&comms[1], 2, id, 0);")
        assert e == INVALID_USAGE and "rank 0 of this ncclUniqueId is in the open group already" in v, (e, v)
        assert "the open group was dropped" in v, v
        e, v = err(k, "ncclGroupEnd();")
        assert "no group is open" in v, (e, v)
        # a cell that fails for another reason drops the group it left open, and says so
        c, msgs = support.run(k, "ncclGroupStart();\nint *p = 0;\nint y = *p;")
        assert c["status"] == "error", c
        assert "the NCCL group this cell left open was dropped" in stdout_of(msgs, "stderr"), msgs
        e, v = err(k, "ncclGroupEnd();")
        assert "no group is open" in v, (e, v)
        # nested groups end at the outermost end; an empty group is no work
        ok(k, "ncclGroupStart(); ncclGroupStart(); ncclGroupEnd(); ncclGroupEnd();")
        e, v = err(k, "ncclGroupSimulateEnd(NULL);")
        assert e == INVALID_USAGE and "cannot be simulated" in v, (e, v)


def test_calls_without_a_gpu_are_clear_errors():
    if support.GPU:
        return
    with shared_kernel() as k:
        nccl_built(k)
        e, v = err(k, "int ver = 0; ncclGetVersion(&ver);")
        assert e == "ncclSystemError" and "no CUDA driver" in v, (e, v)
        # the status is the call's value when it is kept
        out = stdout_of(ok(k, "ncclUniqueId u; ncclResult_t r = ncclGetUniqueId(&u); printf(\"%d\\n\", r);"))
        assert out.strip() == "2", out
        # a group of a communicator's every rank reaches ncclGroupEnd, which needs the GPU
        e, v = err(k, """ncclComm_t c2[2]; ncclUniqueId i2; memset(&i2, 9, sizeof i2);
ncclGroupStart();
ncclCommInitRank(&c2[0], 1, i2, 0);
ncclGroupEnd();""")
        assert e == "ncclSystemError" and "no CUDA driver" in v, (e, v)
        e, v = err(k, "ncclFoo(1);")
        assert e == "NameError" and "not a function of NCCL" in v, (e, v)
