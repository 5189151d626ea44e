"""Where the tests find the CUDA toolkit's command-line tools: the toolkit's
own bin folder (the GPU machine), else build/cuda-tools, where `make test`
unpacks nvdisasm and cuobjdump from NVIDIA's wheels (this toolkit's wheels
leave them out). ICUDA_TOOLS_PATH tells the kernel."""
import os
import shutil

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CUDA = os.environ.get("CUDA_HOME") or "/usr/local/cuda"
WHEELS = os.path.join(ROOT, "build", "cuda-tools", "nvidia", "cu13", "bin")


def tools_dir(name="nvdisasm"):
    """A folder with the tool, or None."""
    for d in (os.path.join(CUDA, "bin"), WHEELS):
        if os.access(os.path.join(d, name), os.X_OK):
            return d
    found = shutil.which(name)
    return os.path.dirname(found) if found else None


def env_with(name="nvdisasm"):
    d = tools_dir(name)
    assert d, (f"{name} was found neither in {CUDA}/bin, nor in {WHEELS} (`make test` installs it there from "
               "PyPI), nor on PATH")
    return {"ICUDA_TOOLS_PATH": d}
