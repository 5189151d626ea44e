"""%profile / %%profile without a GPU (CI): usage errors that lose nothing,
help, and a clear error with the session going on where there is no GPU.
The summary and timeline are checked from synthetic records by the C unit
test tests/unit/test_profile_report.c; tests/gpu/test_profile_gpu.py runs
the real thing."""
import support
from support import err, ok, shared_kernel


def test_usage_errors_keep_the_session():
    with shared_kernel() as k:
        ok(k, "int kept = 41;")
        e, v = err(k, "%profile")
        assert e == "UsageError" and "nothing to profile" in v, v
        e, v = err(k, "%profile --frobnicate kept++;")
        assert e == "UsageError" and "--frobnicate" in v, v
        e, v = err(k, "%%profile\n\n   \n")
        assert e == "UsageError" and "body is empty" in v, v
        e, v = err(k, "%%profile kept++;\nkept++;")
        assert e == "UsageError" and "only options" in v, v
        e, v = err(k, "%%profile --bogus\nkept++;")
        assert e == "UsageError" and "--bogus" in v, v
        # none of them ran the code
        msgs = ok(k, "kept")
        assert any(m["msg_type"] == "execute_result" and m["content"]["data"]["text/plain"] == "(int) 41"
                   for m in msgs), msgs


def test_help_and_lsmagic_list_it():
    with shared_kernel() as k:
        out = support.help_of(k, "%profile?")
        assert "%profile [--no-timeline] [--metrics] STATEMENT" in out, out
        assert "CUPTI" in out and "--metrics" in out, out
        out = support.stdout_of(ok(k, "%lsmagic"))
        assert "profile" in out, out


def test_without_a_gpu_a_clear_error_and_the_session_goes_on():
    if support.GPU:
        return
    with shared_kernel() as k:
        ok(k, "int n = 0;")
        e, v = err(k, "%profile n++;")
        assert e in ("cudaErrorInsufficientDriver", "cudaErrorNoDevice"), (e, v)
        assert v.startswith("%profile: ") and ("no CUDA driver" in v or "no GPU" in v), v
        e, v = err(k, "%%profile --no-timeline\nn++;")
        assert e in ("cudaErrorInsufficientDriver", "cudaErrorNoDevice"), (e, v)
        # the statement did not run, the session goes on
        msgs = ok(k, "n += 2; n")
        assert any(m["msg_type"] == "execute_result" and m["content"]["data"]["text/plain"] == "(int) 2"
                   for m in msgs), msgs
        # --metrics is an option like the others: the same clear error
        e, v = err(k, "%profile --metrics n++;")
        assert e in ("cudaErrorInsufficientDriver", "cudaErrorNoDevice"), (e, v)
