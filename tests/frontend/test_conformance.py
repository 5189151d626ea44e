"""The Jupyter project's own kernel conformance suite (jupyter_kernel_test)
run against icuda with icuda's samples: every test it has must pass (the
ones without a sample, clear_output, are skipped by the suite itself)."""
import os
import unittest

import support


def icuda_case():
    import jupyter_kernel_test as jkt

    class IcudaKernelTests(jkt.KernelTests):
        kernel_name = "icuda"
        language_name = "cuda"
        file_extension = ".cu"
        code_hello_world = 'printf("hello, world\\n");'
        code_stderr = 'fprintf(stderr, "oops\\n");'
        completion_samples = [
            {"text": "pri", "matches": {"printf"}},
            {"text": "cudaMallocMa", "matches": {"cudaMallocManaged"}},
            {"text": "%lsma", "matches": {"%lsmagic"}},
        ]
        complete_code_samples = ["int a = 1;", "__global__ void k(int *p) { p[0] = 1; }", "%who",
                                 "%%timeit\nint q = 1;\n\n"]
        incomplete_code_samples = ["__global__ void k(int *p) {", "for (int i = 0; i < 3; i++) {",
                                   "int a[] = {1,"]
        invalid_code_samples = ["int a = 1; }", 'printf("no end);']
        code_page_something = "cudaMalloc?"
        code_generate_error = "int e = undefined_name + 1;"
        code_execute_result = [{"code": "6 * 7", "result": "(int) 42"},
                               {"code": "int r = 5; r * 2", "result": "(int) 10"},
                               {"code": "1.5 + 1", "result": "(double) 2.5"}]
        code_history_pattern = "6 * ?"
        supported_history_operations = ("tail", "range", "search")
        code_display_data = [{"code": "int shown = 1;\n%who", "mime": "text/html"},
                             {"code": "%who", "mime": "text/plain"}]
        code_inspect_sample = "cudaMemcpy"

    return IcudaKernelTests


@support.timeout(300)
def test_jupyter_kernel_test_suite():
    import jupyter_kernel_test  # noqa: F401  (requirements.txt; CI fails without it)
    with support.kernelspec_dir() as data_dir:
        saved = os.environ.get("JUPYTER_PATH")
        os.environ["JUPYTER_PATH"] = data_dir
        try:
            suite = unittest.defaultTestLoader.loadTestsFromTestCase(icuda_case())
            result = unittest.TestResult()
            suite.run(result)
        finally:
            if saved is None:
                os.environ.pop("JUPYTER_PATH", None)
            else:
                os.environ["JUPYTER_PATH"] = saved
    problems = [f"{t.id()}:\n{tb}" for t, tb in result.failures + result.errors]
    assert not problems, "\n".join(problems)
    ran = result.testsRun - len(result.skipped)
    skipped = sorted(t.id().rsplit(".", 1)[-1] for t, _ in result.skipped)
    # the suite skips only what icuda has no sample for
    assert skipped == ["test_clear_output"], skipped
    assert ran >= 11, (result.testsRun, skipped)
