"""tools/jupyter/icuda-gateway.sbatch, the Slurm job that docs/remote-gpu.md
gives for a Kernel Gateway on a GPU node, run as sbatch would run it (bash,
its #SBATCH lines comments) with no Slurm: it makes a token file only its
user can read, says the node and port to tunnel to, and starts a gateway
on 127.0.0.1 that serves icuda's installed kernelspec to that token alone,
lists kernels for JupyterLab, and keeps the token off its command line."""
import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gateways import ROOT, api, end, executable, spawn, wait_up  # noqa: E402

import support  # noqa: E402

SCRIPT = os.path.join(ROOT, "tools", "jupyter", "icuda-gateway.sbatch")


@support.timeout(120)
def test_the_slurm_job_starts_a_gateway_for_icuda():
    gateway = executable("kernel")
    work = tempfile.mkdtemp(prefix="icuda-gateway-job-")
    proc = None
    try:
        prefix = os.path.join(work, "prefix")
        r = subprocess.run([os.path.abspath(support.PLAIN_KERNEL), "--install", "--prefix", prefix],
                           capture_output=True, text=True)
        assert r.returncode == 0, r.stdout + r.stderr
        token_file = os.path.join(work, "token")
        env = dict(os.environ, HOME=work, ICUDA_KERNELGATEWAY=gateway, ICUDA_GATEWAY_TOKEN_FILE=token_file,
                   JUPYTER_PATH=os.path.join(prefix, "share", "jupyter"),
                   JUPYTER_DATA_DIR=os.path.join(work, "data"), JUPYTER_CONFIG_DIR=os.path.join(work, "config"),
                   JUPYTER_RUNTIME_DIR=os.path.join(work, "runtime"))
        log = os.path.join(work, "job.log")
        proc = spawn(["bash", SCRIPT], log, env)

        # the job's log says where it listens
        deadline = time.time() + 60
        while not (m := re.search(r"icuda gateway on node (\S+), port (\d+)", open(log).read())):
            assert proc.poll() is None and time.time() < deadline, open(log).read()
            time.sleep(0.2)
        url = f"http://127.0.0.1:{m.group(2)}"
        assert f"ssh -N -L 8888:127.0.0.1:{m.group(2)}" in open(log).read()

        mode = stat.S_IMODE(os.stat(token_file).st_mode)
        assert mode == 0o600, oct(mode)
        token = open(token_file).read().strip()
        assert len(token) >= 32, token
        wait_up(proc, f"{url}/api/kernelspecs", log, token=token)

        status, specs = api(url, "GET", "/api/kernelspecs", token=token)
        assert status == 200 and "icuda" in specs["kernelspecs"], specs
        status, answer = api(url, "GET", "/api/kernelspecs", token=None)
        assert status in (401, 403), (status, answer)
        status, answer = api(url, "GET", "/api/kernels", token=token)
        assert status == 200, (status, answer)

        # the gateway replaced the script's shell (exec): its command line is proc's
        with open(f"/proc/{proc.pid}/cmdline", "rb") as f:
            argv = f.read().decode(errors="replace")
        assert "kernelgateway" in argv and token not in argv, argv
    finally:
        if proc is not None:
            end(proc)
        shutil.rmtree(work, ignore_errors=True)
